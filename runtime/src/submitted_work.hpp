#pragma once
#include <vulkan/vulkan_core.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kernelgen {

// The fences submissions signal, recycled, and how to wait on them: the device's name for errors and how long
// a wait polls. The Device closes it when it dies (after waiting for the GPU): work a Submission still refers
// to then counts as finished, and the fences are gone.
class FencePool {
 public:
  FencePool(VkDevice device, uint32_t spin_wait_us, std::string device_name)
      : device_(device), spin_wait_us_(spin_wait_us), device_name_(std::move(device_name)) {}
  FencePool(const FencePool&) = delete;
  FencePool& operator=(const FencePool&) = delete;
  ~FencePool() { close(); }

  VkDevice device() const { return device_; }
  uint32_t spin_wait_us() const { return spin_wait_us_; }
  const std::string& device_name() const { return device_name_; }
  // An unsignalled fence: a recycled one or a new one.
  VkFence take();
  void give_back(VkFence fence);
  // Destroys every fence, lent or not. Call only when the device is idle.
  void close();
  bool closed() const;

 private:
  VkDevice device_;
  uint32_t spin_wait_us_;
  std::string device_name_;
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::vector<VkFence> all_;
  std::vector<VkFence> free_;
};

// One vkQueueSubmit's work, finished when its fence signals. Shared by the Submission handed to the caller and
// by whatever must wait for it before reusing its resources (a Sequence before it records again, the staging
// memory before it is overwritten). Thread-safe.
class SubmittedWork {
 public:
  // `injected_failure`: a test's fault (Queue::fail_next_wait), reported once the fence has signalled.
  SubmittedWork(std::shared_ptr<FencePool> fences, VkFence fence, VkResult injected_failure = VK_SUCCESS)
      : fences_(std::move(fences)), fence_(fence), injected_failure_(injected_failure) {}
  SubmittedWork(const SubmittedWork&) = delete;
  SubmittedWork& operator=(const SubmittedWork&) = delete;

  bool ready();
  void wait();

 private:
  void finish();  // with mutex_ held, once the fence has signalled

  std::mutex mutex_;
  std::shared_ptr<FencePool> fences_;
  VkFence fence_;
  VkResult injected_failure_;
  std::atomic<bool> done_{false};
};

// The device's compute queue. vkQueueSubmit needs the queue to itself, so every submission goes through here.
class Queue {
 public:
  Queue(VkDevice device, VkQueue queue, uint32_t spin_wait_us, std::string device_name)
      : queue_(queue), fences_(std::make_shared<FencePool>(device, spin_wait_us, std::move(device_name))) {}

  // Submits the command buffers in order as one batch; the work finishes when all of them have.
  std::shared_ptr<SubmittedWork> submit(std::span<const VkCommandBuffer> command_buffers);
  // After the device has gone idle, before it is destroyed.
  void close() { fences_->close(); }

  // Fault injection for tests (tests/runtime/faults_test.cpp): the next submit fails with `result` instead of
  // calling vkQueueSubmit, or the next submission's wait reports `result` once its work has finished, as a
  // driver reports a lost device.
  void fail_next_submit(VkResult result);
  void fail_next_wait(VkResult result);

 private:
  std::mutex mutex_;
  VkQueue queue_;
  std::shared_ptr<FencePool> fences_;
  VkResult next_submit_failure_ = VK_SUCCESS;  // guarded by mutex_
  VkResult next_wait_failure_ = VK_SUCCESS;    // guarded by mutex_
};

}  // namespace kernelgen
