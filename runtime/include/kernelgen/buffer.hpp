#pragma once
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kernelgen {

class Device;

// A storage buffer in device memory, sub-allocated from the Device's larger blocks. Where the memory is also
// host-visible (integrated GPUs, lavapipe) uploads and downloads are plain copies. Elsewhere an upload copies
// the data into the Device's staging memory and returns; the copy to the GPU goes in front of the next
// submission on the Device. A download waits for the copy back.
//
// Neither waits for submitted work using the buffer: wait for a Submission before reading what it wrote or
// uploading over what it reads. Destroying a Buffer waits for the submissions still using it. Different
// buffers may be used on different threads at once.
//
// A moved-from Buffer is empty: size() 0, vk_buffer() null, id() 0. Binding it to a kernel throws
// std::invalid_argument, and uploading to or downloading from it std::out_of_range. Binding a Buffer on
// another Device than its own, and uploading from or downloading into a null pointer, throw
// std::invalid_argument.
class Buffer {
 public:
  Buffer(Device& device, std::size_t bytes);
  ~Buffer();
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  std::size_t size() const { return bytes_; }
  // The Device it was made on: only kernels and sequences of that Device can use it.
  const Device* device() const { return device_; }
  VkBuffer vk_buffer() const { return buffer_; }
  // Unique to this allocation for the life of the process, unlike the VkBuffer handle, which Vulkan may hand
  // to a buffer created after this one dies: what caches of descriptor sets are keyed by.
  uint64_t id() const { return id_; }

  void upload(const void* data, std::size_t bytes, std::size_t offset = 0);
  void download(void* data, std::size_t bytes, std::size_t offset = 0) const;

  template <class T>
  void upload(std::span<const T> values, std::size_t offset = 0) {
    upload(values.data(), values.size_bytes(), offset);
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> values(bytes_ / sizeof(T));
    download(values.data(), values.size() * sizeof(T));
    return values;
  }

 private:
  void release();

  Device* device_ = nullptr;
  std::size_t bytes_ = 0;
  uint64_t id_ = 0;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;  // a block shared with other buffers, unless dedicated_
  uint64_t memory_offset_ = 0;
  uint64_t memory_bytes_ = 0;
  bool dedicated_ = false;
  void* mapped_ = nullptr;  // the buffer's first byte, when the memory is host-visible
};

// A Buffer from a byte offset on: a tensor bound inside a larger buffer, e.g. a KV cache's next rows, which an op
// writes at the position of the tokens it appends. The offset must be a multiple of the device's
// minStorageBufferOffsetAlignment (DeviceInfo::min_storage_buffer_offset_alignment).
struct BufferSlice {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
};

}  // namespace kernelgen
