#include "submitted_work.hpp"

#include <chrono>
#include <thread>
#include <utility>

#include "kernelgen/submission.hpp"
#include "vk_check.hpp"

namespace kernelgen {

VkFence FencePool::take() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) throw std::logic_error("kernelgen: submitting work to a Device that is being destroyed");
  if (!free_.empty()) {
    const VkFence fence = free_.back();
    free_.pop_back();
    return fence;
  }
  VkFenceCreateInfo create{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  vk_check(vkCreateFence(device_, &create, nullptr, &fence), "creating a fence");
  all_.push_back(fence);
  return fence;
}

void FencePool::give_back(VkFence fence) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  if (vkResetFences(device_, 1, &fence) == VK_SUCCESS) free_.push_back(fence);
  // A fence that cannot be reset (device lost) stays out of use until the pool closes.
}

void FencePool::close() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  closed_ = true;
  for (VkFence fence : all_) vkDestroyFence(device_, fence, nullptr);
  all_.clear();
  free_.clear();
}

bool FencePool::closed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

void SubmittedWork::finish() {
  fences_->give_back(fence_);
  fence_ = VK_NULL_HANDLE;
  done_ = true;
  if (injected_failure_ != VK_SUCCESS)
    throw VulkanError(std::exchange(injected_failure_, VK_SUCCESS),
                      "waiting for work on " + fences_->device_name());
}

bool SubmittedWork::ready() {
  if (done_) return true;
  // A thread inside wait() holds the lock until the work ends: not finished as far as a poll can tell.
  const std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return done_;
  if (done_) return true;
  if (fences_->closed()) {
    done_ = true;
    return true;
  }
  const VkResult status = vkGetFenceStatus(fences_->device(), fence_);
  if (status == VK_NOT_READY) return false;
  vk_check(status, "polling work on " + fences_->device_name());
  finish();
  return true;
}

void SubmittedWork::wait() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return;
  if (fences_->closed()) {
    done_ = true;
    return;
  }
  // Polling the fence answers within a microsecond of the GPU finishing; a blocking wait sleeps until the
  // driver's interrupt wakes the thread, tens of microseconds later on a discrete GPU. So poll for a while
  // (work as short as most kernels' ends within it), then sleep.
  const VkDevice device = fences_->device();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(fences_->spin_wait_us());
  VkResult status = vkGetFenceStatus(device, fence_);
  while (status == VK_NOT_READY && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
    status = vkGetFenceStatus(device, fence_);
  }
  if (status == VK_NOT_READY) status = vkWaitForFences(device, 1, &fence_, VK_TRUE, UINT64_MAX);
  vk_check(status, "waiting for work on " + fences_->device_name());
  finish();
}

std::shared_ptr<SubmittedWork> Queue::submit(std::span<const VkCommandBuffer> command_buffers) {
  const VkFence fence = fences_->take();
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = static_cast<uint32_t>(command_buffers.size());
  submit.pCommandBuffers = command_buffers.data();
  VkResult result;
  VkResult wait_failure;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    result = std::exchange(next_submit_failure_, VK_SUCCESS);
    if (result == VK_SUCCESS) result = vkQueueSubmit(queue_, 1, &submit, fence);
    wait_failure = result == VK_SUCCESS ? std::exchange(next_wait_failure_, VK_SUCCESS) : VK_SUCCESS;
  }
  if (result != VK_SUCCESS) {
    fences_->give_back(fence);
    throw VulkanError(result, "submitting work to " + fences_->device_name());
  }
  return std::make_shared<SubmittedWork>(fences_, fence, wait_failure);
}

void Queue::fail_next_submit(VkResult result) {
  const std::lock_guard<std::mutex> lock(mutex_);
  next_submit_failure_ = result;
}

void Queue::fail_next_wait(VkResult result) {
  const std::lock_guard<std::mutex> lock(mutex_);
  next_wait_failure_ = result;
}

Submission::~Submission() {
  // A destructor must not throw: a lost device here is reported by the next call that touches the device.
  try {
    wait();
  } catch (...) {
  }
}

Submission& Submission::operator=(Submission&& other) noexcept {
  if (this != &other) {
    try {
      wait();
    } catch (...) {
    }
    work_ = std::move(other.work_);
  }
  return *this;
}

bool Submission::ready() const { return !work_ || work_->ready(); }

void Submission::wait() {
  if (work_) work_->wait();
}

}  // namespace kernelgen
