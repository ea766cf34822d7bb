#pragma once
#include <vulkan/vulkan_core.h>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "device_memory.hpp"
#include "submitted_work.hpp"

namespace kernelgen {

// Uploads to and downloads from device-local memory the host cannot map, through staging memory that is
// reused. An upload copies the data into staging memory and notes the copy; the copies are recorded and go to
// the GPU in front of the next submission (Sequence::submit, a download), in the same vkQueueSubmit, so
// uploading costs no submit and no wait of its own. A submission that fails keeps its copies: the next one
// carries them, so an upload that returned is never dropped. A download notes its copy, submits and waits.
// Two staging slots take turns, so uploads for the next submission fill one while the GPU reads the other.
// Thread-safe.
class Transfers {
 public:
  // Staging memory grows to the largest transfer up to this; larger transfers go in pieces.
  static constexpr std::size_t kMaxStagingBytes = std::size_t{32} << 20;

  Transfers(VkDevice device, uint32_t queue_family, Queue& queue, DeviceMemory& memory);
  ~Transfers();
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  void upload(VkBuffer to, std::size_t offset, const void* data, std::size_t bytes);
  void download(VkBuffer from, std::size_t offset, void* data, std::size_t bytes);
  // Submits the copies noted so far, then `command_buffer` (when not null), as one batch.
  std::shared_ptr<SubmittedWork> submit(VkCommandBuffer command_buffer);
  // Called before `buffer` is destroyed: the copies not yet submitted that name it are dropped (nothing can
  // read what they would write), and those running finish first.
  void buffer_dying(VkBuffer buffer);

 private:
  struct Copy {
    VkBuffer from;
    std::size_t from_offset;
    VkBuffer to;
    std::size_t to_offset;
    std::size_t bytes;
    bool for_host;  // a download's: the host reads what it wrote
  };

  struct Slot {
    VkCommandBuffer command_buffer = VK_NULL_HANDLE;
    BufferAllocation staging;
    std::size_t capacity = 0;
    std::size_t used = 0;
    std::vector<Copy> copies;                // noted, not yet submitted
    std::vector<VkBuffer> running_buffers;   // the buffers the copies of its last submission name
    std::shared_ptr<SubmittedWork> running;  // its last submission
  };

  // The slot taking copies, with room for `bytes` more.
  Slot& open(std::size_t bytes);
  // Records the current slot's copies and submits them with `after`; on success the next slot takes its turn,
  // on failure the copies stay for the next submission.
  std::shared_ptr<SubmittedWork> submit_locked(VkCommandBuffer after);
  void record(Slot& slot);

  std::mutex mutex_;
  VkDevice device_;
  Queue& queue_;
  DeviceMemory& memory_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::array<Slot, 2> slots_;
  std::size_t current_ = 0;
};

}  // namespace kernelgen
