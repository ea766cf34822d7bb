// What docs/runtime.md promises of threads: one Device (and one Kernel) used from several threads at once,
// each thread with its own sequences and buffers, and a Submission waited for on another thread.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/submission.hpp"
#include "shaders.hpp"
#include "staging_param.hpp"

namespace kernelgen {
namespace {

constexpr size_t kThreadsCount = 256;
constexpr Grid kThreadsGrid{kThreadsCount / 64, 1, 1};

class ThreadsTest : public ::testing::TestWithParam<bool> {
 protected:
  Device device{test::staging(GetParam())};
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};
};

KERNELGEN_STAGED_AND_MAPPED(ThreadsTest);

TEST_P(ThreadsTest, OneDeviceAndOneKernelServeFourThreadsAtOnce) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 25; ++round) {
        // Buffers and sequences made and destroyed on every thread at once.
        Buffer in(device, kThreadsCount * 4), out(device, kThreadsCount * 4);
        const float value = static_cast<float>(t * 1000 + round);
        in.upload(std::span<const float>(std::vector<float>(kThreadsCount, value)));
        Sequence sequence(device, 0);
        sequence.dispatch(add_one, {&in, &out}, kThreadsGrid);
        Submission submission = sequence.submit();
        submission.wait();
        if (out.download<float>() != std::vector<float>(kThreadsCount, value + 1)) ++wrong;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(device.take_validation_errors(), std::vector<std::string>{});
}

TEST_P(ThreadsTest, ASubmissionCanBeWaitedForOnAnotherThread) {
  Buffer in(device, kThreadsCount * 4), out(device, kThreadsCount * 4);
  in.upload(std::span<const float>(std::vector<float>(kThreadsCount, 2.0f)));
  Sequence sequence(device, 0);
  sequence.dispatch(add_one, {&in, &out}, kThreadsGrid);
  Submission submission = sequence.submit();
  std::thread waiter([&] { submission.wait(); });
  waiter.join();
  EXPECT_TRUE(submission.ready());
  EXPECT_EQ(out.download<float>(), std::vector<float>(kThreadsCount, 3.0f));
}

}  // namespace
}  // namespace kernelgen
