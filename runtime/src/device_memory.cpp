#include "device_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "vk_check.hpp"

namespace kernelgen {

namespace {

VkDeviceSize align_up(VkDeviceSize value, VkDeviceSize alignment) {
  return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

VkDeviceMemory allocate_memory(VkDevice device, VkDeviceSize bytes, uint32_t type, bool host_visible, void** mapped,
                               const std::string& what) {
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = bytes;
  info.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  vk_check(vkAllocateMemory(device, &info, nullptr, &memory), what);
  if (host_visible) {
    const VkResult result = vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, mapped);
    if (result != VK_SUCCESS) {
      vkFreeMemory(device, memory, nullptr);
      vk_check(result, "mapping memory for " + what);
    }
  }
  return memory;
}

// "4.00 MiB", or "512 bytes" below a MiB. (Cutting std::to_string's digits turned 1 TiB into "104857 MiB".)
std::string size_text(std::size_t bytes) {
  if (bytes < (std::size_t{1} << 20)) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

int DeviceMemory::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  for (uint32_t i = 0; i < properties_.memoryTypeCount; ++i)
    if ((type_bits & (1u << i)) && (properties_.memoryTypes[i].propertyFlags & required) == required)
      return static_cast<int>(i);
  return -1;
}

BufferAllocation DeviceMemory::create_buffer(std::size_t bytes, VkBufferUsageFlags usage,
                                             VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags required) {
  BufferAllocation allocation;
  VkBufferCreateInfo create{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  create.size = bytes;
  create.usage = usage;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(device_, &create, nullptr, &allocation.buffer), "creating a buffer of " + size_text(bytes));
  try {
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(device_, allocation.buffer, &needs);
    int type = memory_type(needs.memoryTypeBits, preferred);
    if (type < 0) type = memory_type(needs.memoryTypeBits, required);
    if (type < 0) throw std::runtime_error("kernelgen: " + device_name_ + " has no suitable memory type for a buffer");
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const bool host_visible = (properties_.memoryTypes[type].propertyFlags & mappable) == mappable;
    allocation.memory = allocate(needs, static_cast<uint32_t>(type), host_visible,
                                 "allocating " + size_text(bytes) + " of device memory");
    const VkResult result =
        vkBindBufferMemory(device_, allocation.buffer, allocation.memory.memory, allocation.memory.offset);
    if (result != VK_SUCCESS) {
      free(allocation.memory);
      vk_check(result, "binding " + size_text(bytes) + " of device memory to a buffer");
    }
  } catch (...) {
    vkDestroyBuffer(device_, allocation.buffer, nullptr);
    throw;
  }
  return allocation;
}

void DeviceMemory::destroy_buffer(const BufferAllocation& allocation) {
  if (allocation.buffer) vkDestroyBuffer(device_, allocation.buffer, nullptr);
  free(allocation.memory);
}

DeviceMemory::~DeviceMemory() {
  for (const auto& block : blocks_) vkFreeMemory(device_, block->memory, nullptr);
}

bool DeviceMemory::carve(Block& block, const VkMemoryRequirements& needs, VkDeviceSize* offset) {
  for (auto range = block.free.begin(); range != block.free.end(); ++range) {
    const auto [start, size] = *range;
    const VkDeviceSize aligned = align_up(start, needs.alignment);
    if (aligned - start + needs.size > size) continue;
    block.free.erase(range);
    if (aligned > start) block.free.emplace(start, aligned - start);
    const VkDeviceSize end = aligned + needs.size;
    if (end < start + size) block.free.emplace(end, start + size - end);
    *offset = aligned;
    return true;
  }
  return false;
}

MemoryRange DeviceMemory::allocate(const VkMemoryRequirements& needs, uint32_t type, bool host_visible,
                                   const std::string& what) {
  MemoryRange range;
  range.size = needs.size;
  if (needs.size > kBlockBytes / 4) {
    range.memory = allocate_memory(device_, needs.size, type, host_visible, &range.mapped, what);
    range.dedicated = true;
    return range;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  Block* chosen = nullptr;
  for (const auto& block : blocks_)
    if (block->type == type && carve(*block, needs, &range.offset)) {
      chosen = block.get();
      break;
    }
  if (!chosen) {
    auto block = std::make_unique<Block>();
    block->type = type;
    block->memory = allocate_memory(device_, kBlockBytes, type, host_visible, &block->mapped, what);
    block->free.emplace(0, kBlockBytes);
    carve(*block, needs, &range.offset);
    chosen = block.get();
    blocks_.push_back(std::move(block));
  }
  range.memory = chosen->memory;
  if (chosen->mapped) range.mapped = static_cast<char*>(chosen->mapped) + range.offset;
  return range;
}

void DeviceMemory::free(const MemoryRange& range) {
  if (!range.memory) return;
  if (range.dedicated) {
    vkFreeMemory(device_, range.memory, nullptr);
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto owner = std::find_if(blocks_.begin(), blocks_.end(),
                                  [&](const auto& block) { return block->memory == range.memory; });
  if (owner == blocks_.end()) return;
  auto& free = (*owner)->free;
  VkDeviceSize start = range.offset, end = range.offset + range.size;
  // Merge with the free range just after and the one just before.
  if (auto after = free.find(end); after != free.end()) {
    end += after->second;
    free.erase(after);
  }
  if (auto after = free.lower_bound(start); after != free.begin()) {
    auto before = std::prev(after);
    if (before->first + before->second == start) {
      start = before->first;
      free.erase(before);
    }
  }
  free.emplace(start, end - start);
  // An emptied block is released unless it is its type's only one: a loop that makes and drops one buffer
  // must not allocate a block per iteration.
  const uint32_t type = (*owner)->type;
  const bool others = std::any_of(blocks_.begin(), blocks_.end(),
                                  [&](const auto& block) { return block != *owner && block->type == type; });
  if (start == 0 && end == kBlockBytes && others) {
    vkFreeMemory(device_, (*owner)->memory, nullptr);
    blocks_.erase(owner);
  }
}

std::size_t DeviceMemory::block_count() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

}  // namespace kernelgen
