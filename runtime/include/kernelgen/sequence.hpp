#pragma once
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/kernel.hpp"

namespace kernelgen {

class Buffer;
class Device;
struct DeviceInfo;

// Ticks from timestamp `from` to timestamp `to` of a queue whose timestamps have `valid_bits` bits: the bits
// above are undefined, and the counter wraps at 2^valid_bits.
uint64_t timestamp_ticks(uint64_t from, uint64_t to, uint32_t valid_bits);

// Why `buffers` cannot be bound whole to a kernel on this device (one larger than maxStorageBufferRange), or
// an empty string.
std::string unbindable_buffer(std::span<const uint64_t> sizes, const DeviceInfo& device);

// Several dispatches recorded into one command buffer and submitted once. A recorded sequence can be
// submitted again as it is (for timing loops); reset() starts a new recording.
class Sequence {
 public:
  explicit Sequence(Device& device, uint32_t max_timestamps = 64);
  ~Sequence();
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Records a dispatch, preceded by a barrier that makes every earlier write in this sequence visible. `dims`:
  // the values of the kernel's symbolic dims (Kernel::dim_count() of them), pushed as push constants.
  Sequence& dispatch(Kernel& kernel, const std::vector<const Buffer*>& buffers, Grid grid,
                     std::span<const uint32_t> dims = {});
  // Records a GPU timestamp after all previous work; read it back with timestamp_ns() after submit().
  Sequence& timestamp();
  // Fills the whole buffer with a 32-bit pattern.
  Sequence& fill(const Buffer& buffer, uint32_t word);

  void submit();
  void reset();

  // Nanoseconds between timestamps `from` and `to` of the last submit.
  double elapsed_ns(uint32_t from, uint32_t to) const;
  uint32_t timestamp_count() const { return timestamps_; }
  VkCommandBuffer vk_command_buffer() const { return command_buffer_; }

 private:
  void begin_if_needed();
  void barrier();

  Device* device_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t max_timestamps_;
  uint32_t timestamps_ = 0;
  bool recording_ = false;
  bool recorded_work_ = false;
  std::vector<uint64_t> results_;
};

}  // namespace kernelgen
