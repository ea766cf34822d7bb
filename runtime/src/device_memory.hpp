#pragma once
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kernelgen {

// A range of device memory a buffer is bound to.
struct MemoryRange {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  void* mapped = nullptr;  // the range's first byte, when the memory is host-visible
  bool dedicated = false;  // a vkAllocateMemory of its own
};

// A buffer and the memory it is bound to.
struct BufferAllocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  MemoryRange memory;
};

// A device's memory: its types, and buffers sub-allocated from 64 MiB blocks of device memory, one list of blocks per memory type, so that
// making a small buffer costs no vkAllocateMemory (drivers limit their count, maxMemoryAllocationCount, and
// each is slow). Requests above a quarter of a block get memory of their own. First fit; a freed range merges
// with free neighbours; an emptied block is released unless it is the last of its type. Thread-safe.
//
// (The Vulkan Memory Allocator library does this and more, but is not packaged for Debian 12.)
class DeviceMemory {
 public:
  static constexpr VkDeviceSize kBlockBytes = VkDeviceSize{64} << 20;

  DeviceMemory(VkDevice device, const VkPhysicalDeviceMemoryProperties& properties, std::string device_name)
      : device_(device), properties_(properties), device_name_(std::move(device_name)) {}
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Index of a memory type allowed by type_bits with all the required flags, or -1.
  int memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const;

  // A buffer of `bytes` in memory with the `preferred` flags if a type has them, else the `required` ones;
  // mapped when host-visible and coherent. Throws VulkanError stating the size.
  BufferAllocation create_buffer(std::size_t bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags preferred,
                                 VkMemoryPropertyFlags required);
  void destroy_buffer(const BufferAllocation& allocation);

  // Memory of type `type` meeting `needs`; `host_visible`: map it. Throws VulkanError naming `what`.
  MemoryRange allocate(const VkMemoryRequirements& needs, uint32_t type, bool host_visible, const std::string& what);
  void free(const MemoryRange& range);

  // Blocks held now (for tests).
  std::size_t block_count() const;

 private:
  struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint32_t type = 0;
    void* mapped = nullptr;
    std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size, never adjacent
  };
  static bool carve(Block& block, const VkMemoryRequirements& needs, VkDeviceSize* offset);

  VkDevice device_;
  VkPhysicalDeviceMemoryProperties properties_;
  std::string device_name_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace kernelgen
