#include "kernelgen/buffer.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernelgen/device.hpp"
#include "one_shot.hpp"
#include "vk_check.hpp"

namespace kernelgen {

namespace {

struct Allocation {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

// "4.00 MiB", or "512 bytes" below a MiB. (Cutting std::to_string's digits turned 1 TiB into "104857 MiB".)
std::string size_text(std::size_t bytes) {
  if (bytes < (std::size_t{1} << 20)) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// Prefers the first memory type with all of `preferred`, then any with all of `required`.
Allocation allocate(const Device& device, std::size_t bytes, VkBufferUsageFlags usage,
                    VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags required) {
  const VkDevice vk = device.vk_device();
  Allocation allocation;
  VkBufferCreateInfo create{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  create.size = bytes;
  create.usage = usage;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(vk, &create, nullptr, &allocation.buffer), "creating a buffer of " + size_text(bytes));
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(vk, allocation.buffer, &needs);
  int type = device.memory_type(needs.memoryTypeBits, preferred);
  if (type < 0) type = device.memory_type(needs.memoryTypeBits, required);
  if (type < 0) {
    vkDestroyBuffer(vk, allocation.buffer, nullptr);
    throw std::runtime_error("kernelgen: " + device.info().name + " has no suitable memory type for a buffer");
  }
  VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  info.allocationSize = needs.size;
  info.memoryTypeIndex = static_cast<uint32_t>(type);
  VkResult result = vkAllocateMemory(vk, &info, nullptr, &allocation.memory);
  if (result == VK_SUCCESS) result = vkBindBufferMemory(vk, allocation.buffer, allocation.memory, 0);
  VkMemoryPropertyFlags flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (result == VK_SUCCESS && device.memory_type(1u << type, flags) == type)
    result = vkMapMemory(vk, allocation.memory, 0, VK_WHOLE_SIZE, 0, &allocation.mapped);
  if (result != VK_SUCCESS) {
    if (allocation.memory) vkFreeMemory(vk, allocation.memory, nullptr);
    vkDestroyBuffer(vk, allocation.buffer, nullptr);
    vk_check(result, "allocating " + size_text(bytes) + " of device memory");
  }
  return allocation;
}

void free(const Device& device, const Allocation& allocation) {
  if (allocation.memory) vkFreeMemory(device.vk_device(), allocation.memory, nullptr);
  if (allocation.buffer) vkDestroyBuffer(device.vk_device(), allocation.buffer, nullptr);
}

// A host-visible buffer that lives for one transfer.
class Staging {
 public:
  Staging(const Device& device, std::size_t bytes)
      : device_(device),
        allocation_(allocate(device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {}
  ~Staging() { free(device_, allocation_); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  void* data() const { return allocation_.mapped; }
  VkBuffer buffer() const { return allocation_.buffer; }

 private:
  const Device& device_;
  Allocation allocation_;
};

void copy(const Device& device, VkBuffer from, std::size_t from_offset, VkBuffer to, std::size_t to_offset,
          std::size_t bytes) {
  run_one_shot(device, [&](VkCommandBuffer command_buffer) {
    // Earlier submissions' writes become visible to the copy, and the copy's writes to the host.
    memory_barrier(command_buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{from_offset, to_offset, bytes};
    vkCmdCopyBuffer(command_buffer, from, to, 1, &region);
    memory_barrier(command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_HOST_READ_BIT);
  });
}

void check_range(std::size_t offset, std::size_t bytes, std::size_t size, const char* what) {
  if (offset > size || bytes > size - offset)
    throw std::out_of_range(std::string("kernelgen: ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " exceeds the buffer's " + std::to_string(size) + " bytes");
}

}  // namespace

namespace {

uint64_t next_buffer_id() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

}  // namespace

Buffer::Buffer(Device& device, std::size_t bytes) : device_(&device), bytes_(bytes), id_(next_buffer_id()) {
  if (bytes == 0) throw std::invalid_argument("kernelgen: a buffer needs at least one byte");
  const Allocation allocation = allocate(
      device, bytes,
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  buffer_ = allocation.buffer;
  memory_ = allocation.memory;
  mapped_ = allocation.mapped;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(other.device_),
      bytes_(other.bytes_),
      id_(std::exchange(other.id_, 0)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    bytes_ = other.bytes_;
    id_ = std::exchange(other.id_, 0);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void Buffer::release() {
  if (buffer_ && id_) device_->buffer_watchers()->buffer_died(id_);
  free(*device_, Allocation{buffer_, memory_, mapped_});
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

void Buffer::upload(const void* data, std::size_t bytes, std::size_t offset) {
  check_range(offset, bytes, bytes_, "an upload");
  if (bytes == 0) return;  // nothing to stage (a staging buffer of 0 bytes is invalid Vulkan)
  if (mapped_) {
    std::memcpy(static_cast<char*>(mapped_) + offset, data, bytes);
    return;
  }
  Staging staging(*device_, bytes);
  std::memcpy(staging.data(), data, bytes);
  copy(*device_, staging.buffer(), 0, buffer_, offset, bytes);
}

void Buffer::download(void* data, std::size_t bytes, std::size_t offset) const {
  check_range(offset, bytes, bytes_, "a download");
  if (bytes == 0) return;
  if (mapped_) {
    std::memcpy(data, static_cast<const char*>(mapped_) + offset, bytes);
    return;
  }
  Staging staging(*device_, bytes);
  copy(*device_, buffer_, offset, staging.buffer(), 0, bytes);
  std::memcpy(data, staging.data(), bytes);
}

}  // namespace kernelgen
