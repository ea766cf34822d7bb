#include "transfers.hpp"

#include <algorithm>
#include <cstring>

#include "barriers.hpp"
#include "vk_check.hpp"

namespace kernelgen {

namespace {

constexpr std::size_t kCopyAlignment = 16;

}  // namespace

Transfers::Transfers(VkDevice device, uint32_t queue_family, Queue& queue, DeviceMemory& memory)
    : device_(device), queue_(queue), memory_(memory) {
  pool_ = create_command_pool(device_, queue_family, " for transfers");
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  for (Slot& slot : slots_) {
    const VkResult result = vkAllocateCommandBuffers(device_, &allocate, &slot.command_buffer);
    if (result != VK_SUCCESS) {
      vkDestroyCommandPool(device_, pool_, nullptr);
      vk_check(result, "allocating a command buffer for transfers");
    }
  }
}

Transfers::~Transfers() {
  // The device is idle by now (Device waits before it destroys anything).
  for (Slot& slot : slots_) memory_.destroy_buffer(slot.staging);
  vkDestroyCommandPool(device_, pool_, nullptr);
}

Transfers::Slot& Transfers::open(std::size_t bytes) {
  Slot* slot = &slots_[current_];
  if (!slot->copies.empty() && slot->used + bytes > slot->capacity) {
    submit_locked(VK_NULL_HANDLE);
    slot = &slots_[current_];
  }
  if (slot->copies.empty()) {
    if (slot->running) slot->running->wait();  // its staging memory and command buffer are free again
    slot->running.reset();
    slot->running_buffers.clear();
    slot->used = 0;
    if (slot->capacity < bytes) {
      memory_.destroy_buffer(slot->staging);
      slot->staging = {};
      slot->capacity = 0;
      const std::size_t capacity = std::max<std::size_t>(bytes, std::size_t{1} << 20);
      slot->staging = memory_.create_buffer(
          capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
      slot->capacity = capacity;
    }
  }
  return *slot;
}

void Transfers::upload(VkBuffer to, std::size_t offset, const void* data, std::size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t piece = std::min(bytes - done, kMaxStagingBytes);
    Slot& slot = open(piece);
    std::memcpy(static_cast<char*>(slot.staging.memory.mapped) + slot.used, static_cast<const char*>(data) + done,
                piece);
    slot.copies.push_back({slot.staging.buffer, slot.used, to, offset + done, piece, false});
    slot.used += (piece + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
    done += piece;
  }
}

void Transfers::download(VkBuffer from, std::size_t offset, void* data, std::size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t piece = std::min(bytes - done, kMaxStagingBytes);
    Slot& slot = open(piece);
    const std::size_t at = slot.used;
    slot.copies.push_back({from, offset + done, slot.staging.buffer, at, piece, true});
    slot.used += (piece + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
    submit_locked(VK_NULL_HANDLE)->wait();
    std::memcpy(static_cast<char*>(data) + done, static_cast<const char*>(slot.staging.memory.mapped) + at, piece);
    done += piece;
  }
}

void Transfers::record(Slot& slot) {
  vk_check(vkResetCommandBuffer(slot.command_buffer, 0), "resetting a transfer command buffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(vkBeginCommandBuffer(slot.command_buffer, &begin), "beginning a transfer command buffer");
  for (const Copy& copy : slot.copies) {
    // Every earlier access (earlier submissions, earlier copies of this batch) happens before the copy; this
    // orders an upload after the kernels that read the old contents and a download after those that wrote.
    memory_barrier(slot.command_buffer, kWorkStages, kWorkWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferCopy region{copy.from_offset, copy.to_offset, copy.bytes};
    vkCmdCopyBuffer(slot.command_buffer, copy.from, copy.to, 1, &region);
    if (copy.for_host)
      memory_barrier(slot.command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  // The copies' writes are visible to whatever runs next.
  memory_barrier(slot.command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 kWorkStages, kWorkAccess);
  vk_check(vkEndCommandBuffer(slot.command_buffer), "ending a transfer command buffer");
}

std::shared_ptr<SubmittedWork> Transfers::submit_locked(VkCommandBuffer after) {
  Slot& slot = slots_[current_];
  if (slot.copies.empty()) {
    if (!after) return nullptr;
    const VkCommandBuffer only[] = {after};
    return queue_.submit(only);
  }
  // Recorded now rather than copy by copy, so that a submission that fails leaves the copies as they were
  // noted: the next submission records them again.
  record(slot);
  const VkCommandBuffer both[] = {slot.command_buffer, after};
  slot.running = queue_.submit(std::span<const VkCommandBuffer>(both, after ? 2 : 1));
  for (const Copy& copy : slot.copies) slot.running_buffers.push_back(copy.for_host ? copy.from : copy.to);
  slot.copies.clear();
  current_ = (current_ + 1) % slots_.size();
  return slot.running;
}

std::shared_ptr<SubmittedWork> Transfers::submit(VkCommandBuffer command_buffer) {
  const std::lock_guard<std::mutex> lock(mutex_);
  return submit_locked(command_buffer);
}

void Transfers::buffer_dying(VkBuffer buffer) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (Slot& slot : slots_) {
    std::erase_if(slot.copies, [&](const Copy& copy) { return copy.from == buffer || copy.to == buffer; });
    if (std::find(slot.running_buffers.begin(), slot.running_buffers.end(), buffer) ==
        slot.running_buffers.end())
      continue;
    if (slot.running) slot.running->wait();
    std::erase(slot.running_buffers, buffer);
  }
}

}  // namespace kernelgen
