#pragma once
#include <memory>

namespace kernelgen {

class Device;
class Sequence;
class SubmittedWork;

// Work handed to the GPU, to wait for or poll. Returned by Sequence::submit() and a generated op's submit():
// keep it to overlap CPU work or further submissions with the GPU, and wait() before reading the results.
// Dropping it waits, the way a std::future from std::async does, but cannot report a lost device: call wait()
// (or use the blocking Sequence::run() and op(...)). Any thread may wait on or poll a Submission; moving it is
// not thread-safe.
class Submission {
 public:
  Submission() = default;  // nothing pending: ready() is true, wait() returns at once
  ~Submission();
  Submission(Submission&&) noexcept = default;
  Submission& operator=(Submission&& other) noexcept;
  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;

  // Whether the GPU has finished, without blocking (false while another thread is inside wait()). Throws
  // VulkanError when the device was lost.
  bool ready() const;
  // Blocks until the GPU has finished: polls first (a short spin, DeviceOptions::spin_wait_us), then sleeps in
  // the driver. Throws VulkanError when the device was lost.
  void wait();

 private:
  friend class Device;
  friend class Sequence;
  explicit Submission(std::shared_ptr<SubmittedWork> work) : work_(std::move(work)) {}
  std::shared_ptr<SubmittedWork> work_;
};

}  // namespace kernelgen
