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
// reused. An upload copies the data into staging memory and records the copy; the copies go to the GPU in
// front of the next submission (Sequence::submit, a download), in the same vkQueueSubmit, so uploading
// costs no submit and no wait of its own. A download records its copy, submits and waits. Two staging
// slots take turns, so uploads for the next submission fill one while the GPU reads the other. Thread-safe.
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
  // Submits the uploads recorded so far, then `command_buffer` (when not null), as one batch.
  std::shared_ptr<SubmittedWork> submit(VkCommandBuffer command_buffer);
  // Called before `buffer` is destroyed: the copies recorded or running that name it finish first.
  void buffer_dying(VkBuffer buffer);

 private:
  struct Slot {
    VkCommandBuffer command_buffer = VK_NULL_HANDLE;
    BufferAllocation staging;
    std::size_t capacity = 0;
    std::size_t used = 0;
    bool recording = false;
    std::vector<VkBuffer> buffers;           // the buffers its copies name
    std::shared_ptr<SubmittedWork> running;  // its last submission
  };

  // The slot being recorded, begun if it was not, with room for `bytes` more.
  Slot& open(std::size_t bytes);
  // Ends the slot being recorded and submits it with `after`; the next slot takes its turn.
  std::shared_ptr<SubmittedWork> submit_locked(VkCommandBuffer after);
  void copy(Slot& slot, VkBuffer from, std::size_t from_offset, VkBuffer to, std::size_t to_offset,
            std::size_t bytes);

  std::mutex mutex_;
  VkDevice device_;
  Queue& queue_;
  DeviceMemory& memory_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  std::array<Slot, 2> slots_;
  std::size_t current_ = 0;
};

}  // namespace kernelgen
