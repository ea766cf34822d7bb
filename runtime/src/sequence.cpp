#include "kernelgen/sequence.hpp"

#include <stdexcept>
#include <string>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "one_shot.hpp"
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

Sequence::Sequence(Device& device, uint32_t max_timestamps) : device_(&device), max_timestamps_(max_timestamps) {
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = device.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  vk_check(vkAllocateCommandBuffers(device.vk_device(), &allocate, &command_buffer_), "allocating a command buffer");
  if (max_timestamps_ > 0 && device.info().timestamp_period_ns > 0) {
    VkQueryPoolCreateInfo pool{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    pool.queryType = VK_QUERY_TYPE_TIMESTAMP;
    pool.queryCount = max_timestamps_;
    const VkResult result = vkCreateQueryPool(device.vk_device(), &pool, nullptr, &query_pool_);
    if (result != VK_SUCCESS) {
      vkFreeCommandBuffers(device.vk_device(), device.vk_command_pool(), 1, &command_buffer_);
      vk_check(result, "creating a timestamp query pool");
    }
  }
}

Sequence::~Sequence() {
  if (query_pool_) vkDestroyQueryPool(device_->vk_device(), query_pool_, nullptr);
  vkFreeCommandBuffers(device_->vk_device(), device_->vk_command_pool(), 1, &command_buffer_);
}

void Sequence::begin_if_needed() {
  if (recording_) return;
  if (recorded_work_) throw std::logic_error("kernelgen: Sequence already recorded and submitted; call reset() first");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vk_check(vkBeginCommandBuffer(command_buffer_, &begin), "beginning a command buffer");
  if (query_pool_) vkCmdResetQueryPool(command_buffer_, query_pool_, 0, max_timestamps_);
  // Work from earlier submissions (uploads, other sequences) is visible to everything recorded here.
  memory_barrier(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  recording_ = true;
}

void Sequence::barrier() {
  memory_barrier(command_buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT);
}

Sequence& Sequence::dispatch(Kernel& kernel, const std::vector<const Buffer*>& buffers, Grid grid,
                             std::span<const uint32_t> dims) {
  std::vector<VkBuffer> handles;
  std::vector<uint64_t> identity, sizes;
  for (const Buffer* buffer : buffers) {
    handles.push_back(buffer->vk_buffer());
    identity.push_back(buffer->id());
    sizes.push_back(buffer->size());
  }
  if (const std::string problem = unbindable_buffer(sizes, device_->info()); !problem.empty())
    throw std::invalid_argument(problem);
  begin_if_needed();
  barrier();
  kernel.record(command_buffer_, handles, grid, dims, identity);
  return *this;
}

Sequence& Sequence::fill(const Buffer& buffer, uint32_t word) {
  begin_if_needed();
  barrier();
  vkCmdFillBuffer(command_buffer_, buffer.vk_buffer(), 0, VK_WHOLE_SIZE, word);
  return *this;
}

Sequence& Sequence::timestamp() {
  if (!query_pool_)
    throw std::runtime_error("kernelgen: " + device_->info().name + " has no timestamps on its compute queue");
  if (timestamps_ == max_timestamps_)
    throw std::length_error("kernelgen: a Sequence holds at most " + std::to_string(max_timestamps_) + " timestamps");
  begin_if_needed();
  vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, timestamps_++);
  return *this;
}

void Sequence::submit() {
  if (recording_) {
    // Results become visible to the host and to later submissions.
    memory_barrier(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_HOST_READ_BIT);
    vk_check(vkEndCommandBuffer(command_buffer_), "ending a command buffer");
    recording_ = false;
    recorded_work_ = true;
  }
  if (!recorded_work_) return;
  device_->submit_and_wait(command_buffer_);
  if (timestamps_ > 0) {
    results_.assign(timestamps_, 0);
    vk_check(vkGetQueryPoolResults(device_->vk_device(), query_pool_, 0, timestamps_, timestamps_ * sizeof(uint64_t),
                                   results_.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "reading GPU timestamps");
  }
}

void Sequence::reset() {
  if (recording_) vkEndCommandBuffer(command_buffer_);
  vk_check(vkResetCommandBuffer(command_buffer_, 0), "resetting a command buffer");
  recording_ = false;
  recorded_work_ = false;
  timestamps_ = 0;
  results_.clear();
}

double Sequence::elapsed_ns(uint32_t from, uint32_t to) const {
  if (from >= results_.size() || to >= results_.size())
    throw std::out_of_range("kernelgen: timestamp index past the last submit's " + std::to_string(results_.size()));
  const DeviceInfo& info = device_->info();
  return static_cast<double>(timestamp_ticks(results_[from], results_[to], info.timestamp_valid_bits)) *
         info.timestamp_period_ns;
}

}  // namespace kernelgen
