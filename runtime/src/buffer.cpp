#include "kernelgen/buffer.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "device_internals.hpp"
#include "device_memory.hpp"
#include "kernelgen/device.hpp"
#include "transfers.hpp"

namespace kernelgen {

namespace {

void check_range(std::size_t offset, std::size_t bytes, std::size_t size, const char* what) {
  if (size == 0 && bytes > 0)
    throw std::out_of_range(std::string("kernelgen: ") + what + " of " + std::to_string(bytes) +
                            " bytes into an empty Buffer (one moved from); use the Buffer it was moved to");
  if (offset > size || bytes > size - offset)
    throw std::out_of_range(std::string("kernelgen: ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                            std::to_string(offset) + " exceeds the buffer's " + std::to_string(size) + " bytes");
}

uint64_t next_buffer_id() {
  static std::atomic<uint64_t> last{0};
  return ++last;
}

}  // namespace

Buffer::Buffer(Device& device, std::size_t bytes) : device_(&device), bytes_(bytes), id_(next_buffer_id()) {
  if (bytes == 0) throw std::invalid_argument("kernelgen: a buffer needs at least one byte");
  const BufferAllocation allocation = DeviceInternals::memory(device).create_buffer(
      bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  buffer_ = allocation.buffer;
  memory_ = allocation.memory.memory;
  memory_offset_ = allocation.memory.offset;
  memory_bytes_ = allocation.memory.size;
  dedicated_ = allocation.memory.dedicated;
  mapped_ = device.always_stage() ? nullptr : allocation.memory.mapped;
}

Buffer::~Buffer() { release(); }

// A moved-from Buffer is empty: size 0 and no VkBuffer, so nothing can bind or copy what it no longer owns.
Buffer::Buffer(Buffer&& other) noexcept
    : device_(other.device_),
      bytes_(std::exchange(other.bytes_, 0)),
      id_(std::exchange(other.id_, 0)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      memory_offset_(other.memory_offset_),
      memory_bytes_(other.memory_bytes_),
      dedicated_(other.dedicated_),
      mapped_(std::exchange(other.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    bytes_ = std::exchange(other.bytes_, 0);
    id_ = std::exchange(other.id_, 0);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    memory_offset_ = other.memory_offset_;
    memory_bytes_ = other.memory_bytes_;
    dedicated_ = other.dedicated_;
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void Buffer::release() {
  if (!buffer_) return;
  // Work that still uses the buffer ends first: submissions of sequences that recorded it, staged copies.
  // Each step runs even when one before it failed (a lost device), so the memory always goes back. An error
  // cannot leave a destructor: the first goes to stderr, and the next call on the device reports a lost
  // device again.
  std::exception_ptr first_error;
  const auto step = [&](auto&& action) {
    try {
      action();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  };
  step([&] { device_->buffer_watchers()->buffer_died(id_); });
  step([&] { DeviceInternals::transfers(*device_).buffer_dying(buffer_); });
  step([&] {
    DeviceInternals::memory(*device_).destroy_buffer(
        {buffer_, MemoryRange{memory_, memory_offset_, memory_bytes_, nullptr, dedicated_}});
  });
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  if (first_error) {
    try {
      std::rethrow_exception(first_error);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "kernelgen: destroying a Buffer of %zu bytes: %s\n", bytes_, error.what());
    } catch (...) {
      std::fprintf(stderr, "kernelgen: destroying a Buffer of %zu bytes: an unknown error\n", bytes_);
    }
  }
}

void Buffer::upload(const void* data, std::size_t bytes, std::size_t offset) {
  check_range(offset, bytes, bytes_, "an upload");
  if (bytes == 0) return;
  if (!data)
    throw std::invalid_argument("kernelgen: an upload of " + std::to_string(bytes) +
                                " bytes from a null pointer; pass the address of the data to upload");
  if (mapped_) {
    std::memcpy(static_cast<char*>(mapped_) + offset, data, bytes);
    return;
  }
  DeviceInternals::transfers(*device_).upload(buffer_, offset, data, bytes);
}

void Buffer::download(void* data, std::size_t bytes, std::size_t offset) const {
  check_range(offset, bytes, bytes_, "a download");
  if (bytes == 0) return;
  if (!data)
    throw std::invalid_argument("kernelgen: a download of " + std::to_string(bytes) +
                                " bytes into a null pointer; pass the address of memory to download into");
  if (mapped_) {
    std::memcpy(data, static_cast<const char*>(mapped_) + offset, bytes);
    return;
  }
  DeviceInternals::transfers(*device_).download(buffer_, offset, data, bytes);
}

}  // namespace kernelgen
