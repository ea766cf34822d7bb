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
  if (slot->recording && slot->used + bytes > slot->capacity) {
    submit_locked(VK_NULL_HANDLE);
    slot = &slots_[current_];
  }
  if (!slot->recording) {
    if (slot->running) slot->running->wait();  // its staging memory and command buffer are free again
    slot->running.reset();
    slot->buffers.clear();
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
    vk_check(vkResetCommandBuffer(slot->command_buffer, 0), "resetting a transfer command buffer");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(vkBeginCommandBuffer(slot->command_buffer, &begin), "beginning a transfer command buffer");
    slot->recording = true;
  }
  return *slot;
}

void Transfers::copy(Slot& slot, VkBuffer from, std::size_t from_offset, VkBuffer to, std::size_t to_offset,
                     std::size_t bytes) {
  // Every earlier access (earlier submissions, earlier copies of this batch) happens before the copy; this
  // orders an upload after the kernels that read the old contents and a download after those that wrote.
  memory_barrier(slot.command_buffer, kWorkStages, kWorkWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  const VkBufferCopy region{from_offset, to_offset, bytes};
  vkCmdCopyBuffer(slot.command_buffer, from, to, 1, &region);
  slot.buffers.push_back(from == slot.staging.buffer ? to : from);
  slot.used += (bytes + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
}

void Transfers::upload(VkBuffer to, std::size_t offset, const void* data, std::size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t piece = std::min(bytes - done, kMaxStagingBytes);
    Slot& slot = open(piece);
    std::memcpy(static_cast<char*>(slot.staging.memory.mapped) + slot.used, static_cast<const char*>(data) + done,
                piece);
    copy(slot, slot.staging.buffer, slot.used, to, offset + done, piece);
    done += piece;
  }
}

void Transfers::download(VkBuffer from, std::size_t offset, void* data, std::size_t bytes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t piece = std::min(bytes - done, kMaxStagingBytes);
    Slot& slot = open(piece);
    const std::size_t at = slot.used;
    copy(slot, from, offset + done, slot.staging.buffer, at, piece);
    memory_barrier(slot.command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    submit_locked(VK_NULL_HANDLE)->wait();
    std::memcpy(static_cast<char*>(data) + done, static_cast<const char*>(slot.staging.memory.mapped) + at, piece);
    done += piece;
  }
}

std::shared_ptr<SubmittedWork> Transfers::submit_locked(VkCommandBuffer after) {
  Slot& slot = slots_[current_];
  if (!slot.recording) {
    if (!after) return nullptr;
    const VkCommandBuffer only[] = {after};
    return queue_.submit(only);
  }
  // The copies' writes are visible to whatever runs next.
  memory_barrier(slot.command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kWorkStages,
                 kWorkAccess);
  slot.recording = false;
  vk_check(vkEndCommandBuffer(slot.command_buffer), "ending a transfer command buffer");
  const VkCommandBuffer both[] = {slot.command_buffer, after};
  slot.running = queue_.submit(std::span<const VkCommandBuffer>(both, after ? 2 : 1));
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
    if (std::find(slot.buffers.begin(), slot.buffers.end(), buffer) == slot.buffers.end()) continue;
    if (slot.recording) {
      // Not yet submitted: run the copies now (an upload into a buffer nobody reads is still the caller's).
      if (&slot == &slots_[current_]) submit_locked(VK_NULL_HANDLE);
    }
    if (slot.running) slot.running->wait();
    std::erase(slot.buffers, buffer);
  }
}

}  // namespace kernelgen
