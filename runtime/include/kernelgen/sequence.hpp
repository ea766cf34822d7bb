#pragma once
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/kernel.hpp"
#include "kernelgen/submission.hpp"

namespace kernelgen {

class Buffer;
class BufferWatchers;
class Device;
class SubmittedWork;
struct DeviceInfo;

// Ticks from timestamp `from` to timestamp `to` of a queue whose timestamps have `valid_bits` bits: the bits
// above are undefined, and the counter wraps at 2^valid_bits.
uint64_t timestamp_ticks(uint64_t from, uint64_t to, uint32_t valid_bits);

// Why ranges of these sizes cannot be bound to a kernel on this device (one larger than
// maxStorageBufferRange), or an empty string.
std::string unbindable_buffer(std::span<const uint64_t> sizes, const DeviceInfo& device);

// Why this device cannot dispatch `grid` (a count above its maxComputeWorkGroupCount), or an empty string.
std::string undispatchable_grid(Grid grid, const DeviceInfo& device);

// Several dispatches recorded into one command buffer and submitted once. A recorded sequence can be
// submitted again as it is, also while an earlier submission of it still runs (one holding timestamps waits
// for it first); reset() starts a new recording.
//
// Barriers: the recording starts with one that orders it after all earlier work on the device (uploads, other
// sequences), and a dispatch waits for the ones before it only when they share a buffer one of them writes, so
// independent dispatches may overlap on the GPU.
//
// Lifetimes: a Buffer recorded here that is destroyed first waits for this sequence's submissions still using
// it, and the recording then refuses to be submitted (reset() and record again). The Sequence waits for its
// submissions when it is reset or destroyed, and until then holds the descriptor sets its recording binds
// (DescriptorSetHold), so no kernel's cache rewrites one under it. One thread at a time may use a Sequence.
class Sequence {
 public:
  explicit Sequence(Device& device, uint32_t max_timestamps = 64);
  ~Sequence();
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Records a dispatch. `dims`: the values of the kernel's symbolic dims (Kernel::dim_count() of them),
  // pushed as push constants. `offsets`: where each buffer's binding starts, in bytes, each a multiple of the
  // device's minStorageBufferOffsetAlignment; empty: 0. `ranges`: the bytes bound of each buffer from its
  // offset (what a kernel's `.length()` counts); empty: the rest of each buffer. Throws std::invalid_argument
  // for a null or empty (moved-from) buffer, a buffer or kernel made on another Device, a misaligned offset,
  // a range outside its buffer, or a grid the device cannot dispatch.
  Sequence& dispatch(Kernel& kernel, const std::vector<const Buffer*>& buffers, Grid grid,
                     std::span<const uint32_t> dims = {}, std::span<const uint64_t> ranges = {},
                     std::span<const uint64_t> offsets = {});
  // Records a GPU timestamp after all previous work; read it back with elapsed_ns() after submit().
  Sequence& timestamp();
  // Fills the whole buffer with a 32-bit pattern. Throws std::invalid_argument for an empty buffer or one
  // made on another Device.
  Sequence& fill(const Buffer& buffer, uint32_t word);
  // Copies to.size() bytes of `from`, from its byte `from_offset` on, over the whole of `to` (any size, unlike
  // fill(): the timing harness resets outputs of any dtype with it, and reads its flush through it). Throws
  // std::invalid_argument for an empty buffer, one made on another Device, `from` holding fewer than
  // to.size() bytes past from_offset, or the same buffer twice.
  Sequence& copy(const Buffer& from, const Buffer& to, uint64_t from_offset = 0);
  // Orders everything recorded after it after everything before it, whatever buffers they use (the timing
  // harness keeps a cache flush from overlapping the dispatch it times).
  Sequence& barrier();

  // Runs the recording and waits for it: the simple, blocking call.
  void run();
  // Hands the recording to the GPU, behind the uploads still waiting, and returns at once: wait() on the
  // Submission (or drop it, which waits too but cannot report a lost device) before reading results.
  [[nodiscard]] Submission submit();
  void reset();

  // Nanoseconds between timestamps `from` and `to` of the last submit (waiting for it).
  double elapsed_ns(uint32_t from, uint32_t to) const;
  uint32_t timestamp_count() const { return timestamps_; }
  // How many barriers the recording holds between its dispatches (not counting its first and last).
  uint32_t barrier_count() const { return barriers_; }
  VkCommandBuffer vk_command_buffer() const { return command_buffer_; }

  // A Buffer with this id is being destroyed (BufferWatchers calls it).
  void forget_buffer(uint64_t id);

 private:
  void begin_if_needed();
  // A barrier before an access of these buffers (writes[i]: whether buffer i is written), if an access since
  // the last barrier conflicts with it.
  void order_after_conflicts(std::span<const uint64_t> ids, const std::vector<bool>& writes);
  void wait_for_submissions();

  struct Access {
    uint64_t id;
    bool writes;
  };

  Device* device_;
  std::shared_ptr<BufferWatchers> watchers_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t max_timestamps_;
  uint32_t timestamps_ = 0;
  uint32_t barriers_ = 0;
  bool recording_ = false;
  bool recorded_work_ = false;
  std::vector<Access> since_barrier_;  // the accesses recorded since the last barrier
  std::vector<DescriptorSetHold> held_sets_;  // the descriptor sets the recording binds
  // Guarded by mutex_, since a buffer may be destroyed on another thread:
  mutable std::mutex mutex_;
  std::vector<uint64_t> recorded_ids_;  // every buffer the recording names
  std::string stale_;                   // why the recording may not be submitted, or empty
  std::vector<std::shared_ptr<SubmittedWork>> submitted_;  // the submissions that may still run, oldest first
  mutable std::vector<uint64_t> results_;  // the last submission's timestamps, read when first asked for
  mutable bool results_read_ = false;
};

}  // namespace kernelgen
