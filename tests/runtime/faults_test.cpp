// What the runtime does when the driver fails it, with faults injected through the device's Queue as a lost
// device or exhausted memory would come: nothing a call already reported done is silently lost, and a dying
// Buffer's cleanup runs to the end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "device_internals.hpp"
#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/error.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "shaders.hpp"
#include "staging_param.hpp"
#include "submitted_work.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

constexpr size_t kFaultsCount = 1000;
constexpr Grid kFaultsGrid{(kFaultsCount + 63) / 64, 1, 1};

class FaultsTest : public ::testing::Test {
 protected:
  // Staged: an upload waits in staging memory for the next submission, the path a failed submit could lose.
  Device device{test::staging(true)};
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};

  Queue& queue() { return DeviceInternals::queue(device); }
  static std::vector<float> all(float value) { return std::vector<float>(kFaultsCount, value); }
  static void upload(Buffer& buffer, float value) { buffer.upload(std::span<const float>(all(value))); }
};

TEST_F(FaultsTest, UploadsStagedBeforeAFailedSubmitGoWithTheNextOne) {
  Buffer a(device, kFaultsCount * 4), b(device, kFaultsCount * 4);
  upload(a, 7.0f);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &b}, kFaultsGrid);
  queue().fail_next_submit(VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_THROW(sequence.run(), VulkanError);
  sequence.run();
  EXPECT_EQ(b.download<float>(), all(8.0f));
  EXPECT_EQ(a.download<float>(), all(7.0f));
}

TEST_F(FaultsTest, ADownloadAfterAFailedFlushSeesTheUpload) {
  Buffer a(device, kFaultsCount * 4);
  upload(a, 3.0f);
  queue().fail_next_submit(VK_ERROR_OUT_OF_HOST_MEMORY);
  EXPECT_THROW(device.flush_uploads(), VulkanError);
  EXPECT_EQ(a.download<float>(), all(3.0f));
}

// The first step of a Buffer's death, the wait for a sequence's submission, fails; the others still run: the
// kernel frees the descriptor set naming the buffer, the recording turns stale, and the staged upload into
// the buffer is dropped rather than left to run into freed memory. The error goes to stderr.
TEST_F(FaultsTest, ABufferWhoseWaitFailsStillFinishesDying) {
  Buffer a(device, kFaultsCount * 4);
  std::optional<Buffer> b(std::in_place, device, kFaultsCount * 4);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &*b}, kFaultsGrid);
  queue().fail_next_wait(VK_ERROR_DEVICE_LOST);
  Submission submission = sequence.submit();
  upload(*b, 1.0f);

  ::testing::internal::CaptureStderr();
  b.reset();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("kernelgen: destroying a Buffer of 4000 bytes: waiting for work on"));
  EXPECT_THAT(log, HasSubstr("VK_ERROR_DEVICE_LOST"));
  EXPECT_EQ(add_one.cached_descriptor_sets(), 0u);
  EXPECT_THROW(sequence.run(), std::logic_error) << "the recording names a dead buffer";
  EXPECT_NO_THROW(device.flush_uploads());
}

}  // namespace
}  // namespace kernelgen
