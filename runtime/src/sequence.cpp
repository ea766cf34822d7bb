#include "kernelgen/sequence.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "barriers.hpp"
#include "device_internals.hpp"
#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "submitted_work.hpp"
#include "transfers.hpp"
#include "vk_check.hpp"

namespace kernelgen {

uint64_t timestamp_ticks(uint64_t from, uint64_t to, uint32_t valid_bits) {
  const uint64_t mask = valid_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << valid_bits) - 1;
  return ((to & mask) - (from & mask)) & mask;
}

std::string unbindable_buffer(std::span<const uint64_t> sizes, const DeviceInfo& device) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (device.max_storage_buffer_range > 0 && sizes[i] > device.max_storage_buffer_range)
      return "kernelgen: buffer " + std::to_string(i) + " holds " + std::to_string(sizes[i]) + " bytes, more than " +
             device.name + " can bind to a kernel at once (maxStorageBufferRange " +
             std::to_string(device.max_storage_buffer_range) + " bytes); use smaller tensors, e.g. a smaller size "
             "of the op's dims per call";
  return "";
}

std::string undispatchable_grid(Grid grid, const DeviceInfo& device) {
  const std::array<uint32_t, 3> counts{grid.x, grid.y, grid.z};
  const auto& limit = device.max_workgroup_count;
  for (size_t i = 0; i < counts.size(); ++i)
    if (limit[i] > 0 && counts[i] > limit[i])
      return "grid " + std::to_string(grid.x) + " x " + std::to_string(grid.y) + " x " +
             std::to_string(grid.z) + " workgroups is more than " + device.name +
             " dispatches at once (maxComputeWorkGroupCount " + std::to_string(limit[0]) + " x " +
             std::to_string(limit[1]) + " x " + std::to_string(limit[2]) + "); use smaller dims per call";
  return "";
}

namespace {

// Why `buffer`, made on another Device than `device`, cannot be used there; empty when it was made on
// `device`.
std::string on_another_device(const std::string& what, const Buffer& buffer, const Device& device) {
  if (buffer.device() == &device) return "";
  return "kernelgen: " + what + " was made on another Device object (" + buffer.device()->info().name +
         ") than this Sequence's (" + device.info().name +
         "); a Buffer can be used only on the Device it was made on: make it on the Sequence's Device";
}

}  // namespace

Sequence::Sequence(Device& device, uint32_t max_timestamps)
    : device_(&device), watchers_(device.buffer_watchers()), max_timestamps_(max_timestamps) {
  const VkDevice vk = device.vk_device();
  // A pool of its own: recording into command buffers of one pool needs the pool to itself.
  pool_ = create_command_pool(vk, device.queue_family(), "");
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkResult result = vkAllocateCommandBuffers(vk, &allocate, &command_buffer_);
  if (result == VK_SUCCESS && max_timestamps_ > 0 && device.info().timestamp_period_ns > 0) {
    VkQueryPoolCreateInfo queries{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queries.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queries.queryCount = max_timestamps_;
    result = vkCreateQueryPool(vk, &queries, nullptr, &query_pool_);
  }
  if (result != VK_SUCCESS) {
    vkDestroyCommandPool(vk, pool_, nullptr);
    vk_check(result, "creating a command buffer and timestamp queries");
  }
  watchers_->watch(this);
}

Sequence::~Sequence() {
  watchers_->unwatch(this);
  try {
    wait_for_submissions();
  } catch (...) {
    // A lost device: nothing runs any more.
  }
  if (query_pool_) vkDestroyQueryPool(device_->vk_device(), query_pool_, nullptr);
  vkDestroyCommandPool(device_->vk_device(), pool_, nullptr);
}

void Sequence::wait_for_submissions() {
  std::vector<std::shared_ptr<SubmittedWork>> submitted;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    submitted = submitted_;
  }
  for (const auto& work : submitted) work->wait();
  const std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(submitted_, [](const auto& work) { return work->ready(); });
}

void Sequence::forget_buffer(uint64_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(recorded_ids_.begin(), recorded_ids_.end(), id) == recorded_ids_.end()) return;
  // Stale before anything can fail: a wait that throws (a lost device) must not leave the recording
  // submittable with a dead buffer in it.
  stale_ = "kernelgen: a Buffer this Sequence recorded was destroyed; reset() it and record again";
  const std::vector<std::shared_ptr<SubmittedWork>> submitted = std::exchange(submitted_, {});
  std::exception_ptr first_error;
  for (const auto& work : submitted) {
    try {
      work->wait();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

void Sequence::begin_if_needed() {
  if (recording_) return;
  if (recorded_work_) throw std::logic_error("kernelgen: Sequence already recorded and submitted; call reset() first");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  // Submitted again while a submission of it runs (one holding timestamps waits first: submit()).
  begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  vk_check(vkBeginCommandBuffer(command_buffer_, &begin), "beginning a command buffer");
  if (query_pool_) vkCmdResetQueryPool(command_buffer_, query_pool_, 0, max_timestamps_);
  // Work from earlier submissions (uploads, other sequences) happens before, and its writes are visible to,
  // everything recorded here. Only the compute and transfer stages, the only ones kernelgen's work uses: on an
  // H100 this barrier costs 0.7 us where one over ALL_COMMANDS costs 2.7 (bench_kernelgen_submit_latency).
  memory_barrier(command_buffer_, kWorkStages, kWorkWrites, kWorkStages, kWorkAccess);
  recording_ = true;
}

void Sequence::order_after_conflicts(std::span<const uint64_t> ids, const std::vector<bool>& writes) {
  bool conflict = false;
  for (const Access& earlier : since_barrier_)
    for (size_t i = 0; i < ids.size() && !conflict; ++i)
      conflict = earlier.id == ids[i] && (earlier.writes || writes[i]);
  if (conflict) {
    memory_barrier(command_buffer_, kWorkStages, kWorkWrites, kWorkStages, kWorkAccess);
    since_barrier_.clear();
    ++barriers_;
  }
  for (size_t i = 0; i < ids.size(); ++i) since_barrier_.push_back({ids[i], writes[i]});
  const std::lock_guard<std::mutex> lock(mutex_);
  recorded_ids_.insert(recorded_ids_.end(), ids.begin(), ids.end());
}

Sequence& Sequence::dispatch(Kernel& kernel, const std::vector<const Buffer*>& buffers, Grid grid,
                             std::span<const uint32_t> dims, std::span<const uint64_t> ranges,
                             std::span<const uint64_t> offsets) {
  std::vector<VkBuffer> handles;
  std::vector<uint64_t> identity, sizes;
  std::vector<bool> writes;
  if (kernel.vk_device() != device_->vk_device())
    throw std::invalid_argument(
        std::string("kernelgen: the Kernel was made on another Device (another VkDevice) ") +
        "than this Sequence's (" + device_->info().name +
        "); make the Kernel, or the op object, on the Sequence's Device");
  // Checked here, before anything is recorded, though Kernel::record checks it too.
  if (buffers.size() != kernel.binding_count())
    throw std::invalid_argument("kernelgen: the kernel takes " + std::to_string(kernel.binding_count()) +
                                " buffers, got " + std::to_string(buffers.size()));
  if (!ranges.empty() && ranges.size() != buffers.size())
    throw std::invalid_argument("kernelgen: one range per buffer, got " + std::to_string(ranges.size()) +
                                " for " + std::to_string(buffers.size()) + " buffers");
  if (!offsets.empty() && offsets.size() != buffers.size())
    throw std::invalid_argument("kernelgen: one offset per buffer, got " + std::to_string(offsets.size()) +
                                " for " + std::to_string(buffers.size()) + " buffers");
  const uint64_t alignment = std::max<uint64_t>(device_->info().min_storage_buffer_offset_alignment, 1);
  for (uint32_t i = 0; i < buffers.size(); ++i) {
    const std::string buffer = "kernelgen: buffer " + std::to_string(i);
    if (!buffers[i]) throw std::invalid_argument(buffer + " is null");
    if (!buffers[i]->vk_buffer())
      throw std::invalid_argument(buffer +
                                  " is empty (a Buffer moved from); pass the Buffer it was moved to");
    if (const std::string problem = on_another_device("buffer " + std::to_string(i), *buffers[i], *device_);
        !problem.empty())
      throw std::invalid_argument(problem);
    const uint64_t offset = offsets.empty() ? 0 : offsets[i];
    if (offset % alignment != 0)
      throw std::invalid_argument(buffer + ": offset " + std::to_string(offset) + " is not a multiple of " +
                                  device_->info().name + "'s minStorageBufferOffsetAlignment (" +
                                  std::to_string(alignment) + " bytes)");
    if (offset >= buffers[i]->size())
      throw std::invalid_argument(buffer + ": offset " + std::to_string(offset) + ", but the buffer holds " +
                                  std::to_string(buffers[i]->size()) + " bytes");
    const uint64_t bound = ranges.empty() ? buffers[i]->size() - offset : ranges[i];
    if (bound == 0 || bound > buffers[i]->size() - offset)
      throw std::invalid_argument(buffer + ": a range of " + std::to_string(bound) + " bytes from offset " +
                                  std::to_string(offset) + ", but the buffer holds " +
                                  std::to_string(buffers[i]->size()) + "; bind from 1 byte up to its end");
    handles.push_back(buffers[i]->vk_buffer());
    identity.push_back(buffers[i]->id());
    sizes.push_back(bound);
    writes.push_back(kernel.writes(i));
  }
  if (const std::string problem = unbindable_buffer(sizes, device_->info()); !problem.empty())
    throw std::invalid_argument(problem);
  if (const std::string problem = undispatchable_grid(grid, device_->info()); !problem.empty())
    throw std::invalid_argument("kernelgen: a dispatch of " + problem);
  begin_if_needed();
  order_after_conflicts(identity, writes);
  held_sets_.push_back(kernel.record(command_buffer_, handles, grid, dims, identity, ranges, offsets));
  return *this;
}

Sequence& Sequence::fill(const Buffer& buffer, uint32_t word) {
  if (!buffer.vk_buffer())
    throw std::invalid_argument(
        "kernelgen: fill of an empty Buffer (one moved from); fill the Buffer it was moved to");
  if (const std::string problem = on_another_device("the Buffer filled", buffer, *device_); !problem.empty())
    throw std::invalid_argument(problem);
  begin_if_needed();
  const uint64_t id = buffer.id();
  order_after_conflicts(std::span<const uint64_t>(&id, 1), {true});
  vkCmdFillBuffer(command_buffer_, buffer.vk_buffer(), 0, VK_WHOLE_SIZE, word);
  return *this;
}

Sequence& Sequence::copy(const Buffer& from, const Buffer& to, uint64_t from_offset) {
  for (const Buffer* buffer : {&from, &to}) {
    if (!buffer->vk_buffer())
      throw std::invalid_argument(
          "kernelgen: copy from or to an empty Buffer (one moved from); copy the Buffer it was moved to");
    if (const std::string problem = on_another_device("the Buffer copied", *buffer, *device_); !problem.empty())
      throw std::invalid_argument(problem);
  }
  if (from.id() == to.id()) throw std::invalid_argument("kernelgen: copy of a Buffer onto itself");
  if (from_offset > from.size() || from.size() - from_offset < to.size())
    throw std::invalid_argument("kernelgen: copy of a Buffer of " + std::to_string(from.size()) + " bytes from byte " +
                                std::to_string(from_offset) + " over one of " + std::to_string(to.size()) +
                                "; the source must hold as many past the offset");
  begin_if_needed();
  const std::array<uint64_t, 2> ids{from.id(), to.id()};
  order_after_conflicts(ids, {false, true});
  const VkBufferCopy region{from_offset, 0, to.size()};
  vkCmdCopyBuffer(command_buffer_, from.vk_buffer(), to.vk_buffer(), 1, &region);
  return *this;
}

Sequence& Sequence::barrier() {
  begin_if_needed();
  memory_barrier(command_buffer_, kWorkStages, kWorkWrites, kWorkStages, kWorkAccess);
  since_barrier_.clear();
  ++barriers_;
  return *this;
}

Sequence& Sequence::timestamp() {
  if (max_timestamps_ == 0) throw std::length_error("kernelgen: this Sequence was made with max_timestamps 0");
  if (!query_pool_)
    throw std::runtime_error("kernelgen: " + device_->info().name + " has no timestamps on its compute queue");
  if (timestamps_ == max_timestamps_)
    throw std::length_error("kernelgen: a Sequence holds at most " + std::to_string(max_timestamps_) + " timestamps");
  begin_if_needed();
  vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, timestamps_++);
  return *this;
}

Submission Sequence::submit() {
  if (recording_) {
    // Results become visible to the host (mapped memory). Later submissions see them through their own
    // first barrier.
    memory_barrier(command_buffer_, kWorkStages, kWorkWrites, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    vk_check(vkEndCommandBuffer(command_buffer_), "ending a command buffer");
    recording_ = false;
    recorded_work_ = true;
  }
  if (!recorded_work_) return {};
  // One set of timestamps: the last submission must end before the next overwrites them.
  if (timestamps_ > 0) wait_for_submissions();
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!stale_.empty()) throw std::logic_error(stale_);
  // Held across the submit, so a buffer destroyed meanwhile on another thread waits for this submission.
  while (!submitted_.empty() && submitted_.front()->ready()) submitted_.erase(submitted_.begin());
  submitted_.push_back(DeviceInternals::transfers(*device_).submit(command_buffer_));
  results_read_ = false;
  return Submission(submitted_.back());
}

void Sequence::run() { submit().wait(); }

void Sequence::reset() {
  wait_for_submissions();
  if (recording_) vkEndCommandBuffer(command_buffer_);
  vk_check(vkResetCommandBuffer(command_buffer_, 0), "resetting a command buffer");
  held_sets_.clear();  // nothing binds them any more
  recording_ = false;
  recorded_work_ = false;
  timestamps_ = 0;
  barriers_ = 0;
  since_barrier_.clear();
  const std::lock_guard<std::mutex> lock(mutex_);
  recorded_ids_.clear();
  stale_.clear();
  submitted_.clear();
  results_.clear();
  results_read_ = false;
}

double Sequence::elapsed_ns(uint32_t from, uint32_t to) const {
  std::shared_ptr<SubmittedWork> last;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!submitted_.empty()) last = submitted_.back();
  }
  if (last) last->wait();
  if (!results_read_ && timestamps_ > 0 && recorded_work_) {
    results_.assign(timestamps_, 0);
    vk_check(vkGetQueryPoolResults(device_->vk_device(), query_pool_, 0, timestamps_, timestamps_ * sizeof(uint64_t),
                                   results_.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "reading GPU timestamps");
    results_read_ = true;
  }
  if (from >= results_.size() || to >= results_.size())
    throw std::out_of_range("kernelgen: timestamp index past the last submit's " + std::to_string(results_.size()));
  const DeviceInfo& info = device_->info();
  return static_cast<double>(timestamp_ticks(results_[from], results_[to], info.timestamp_valid_bits)) *
         info.timestamp_period_ns;
}

}  // namespace kernelgen
