// Lifetimes and asynchronous use (issue 9): a buffer destroyed while a sequence recorded it or while a
// submission still uses it, submissions kept in flight, the barriers a recording needs, and a randomized mix
// of creating, using and destroying buffers and sequences. Each runs with device memory mapped (lavapipe's
// own way) and through staging memory (a discrete GPU's way).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <string>
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

using ::testing::HasSubstr;

constexpr size_t kLifetimeCount = 256;
constexpr Grid kLifetimeGrid{kLifetimeCount / 64, 1, 1};

class LifetimeTest : public ::testing::TestWithParam<bool> {
 protected:
  Device device{test::staging(GetParam())};
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};

  void fill(Buffer& buffer, float value) {
    buffer.upload(std::span<const float>(std::vector<float>(buffer.size() / 4, value)));
  }
  static float first(const Buffer& buffer) { return buffer.download<float>()[0]; }
};

KERNELGEN_STAGED_AND_MAPPED(LifetimeTest);

TEST_P(LifetimeTest, ARecordingWhoseBufferDiedRefusesToRunUntilReset) {
  Buffer in(device, kLifetimeCount * 4);
  fill(in, 1.0f);
  Sequence sequence(device, 0);
  {
    Buffer out(device, kLifetimeCount * 4);
    sequence.dispatch(add_one, {&in, &out}, kLifetimeGrid).run();
    EXPECT_EQ(first(out), 2.0f);
  }
  try {
    sequence.run();
    FAIL() << "a recording naming a destroyed buffer ran";
  } catch (const std::logic_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("a Buffer this Sequence recorded was destroyed; reset() it"));
  }
  Buffer out(device, kLifetimeCount * 4);
  sequence.reset();
  sequence.dispatch(add_one, {&in, &out}, kLifetimeGrid).run();
  EXPECT_EQ(first(out), 2.0f);
}

TEST_P(LifetimeTest, DestroyingABufferARunningSubmissionUsesWaitsForIt) {
  Kernel slow(device, test::spirv_of(test::kSlowAddOne), 2);
  Buffer in(device, kLifetimeCount * 4);
  fill(in, 5.0f);
  Sequence sequence(device, 0);
  auto out = std::make_unique<Buffer>(device, kLifetimeCount * 4);
  sequence.dispatch(slow, {&in, out.get()}, kLifetimeGrid);
  Submission submission = sequence.submit();
  if (submission.ready()) GTEST_SKIP() << device.info().name << " finished the slow kernel before the test could act";
  out.reset();
  EXPECT_TRUE(submission.ready()) << "the buffer was freed while the GPU still used it";
}

TEST_P(LifetimeTest, ADestroyedSequenceWaitsForItsSubmissions) {
  Kernel slow(device, test::spirv_of(test::kSlowAddOne), 2);
  Buffer in(device, kLifetimeCount * 4), out(device, kLifetimeCount * 4);
  fill(in, 5.0f);
  Submission submission;
  {
    Sequence sequence(device, 0);
    sequence.dispatch(slow, {&in, &out}, kLifetimeGrid);
    submission = sequence.submit();
  }
  EXPECT_TRUE(submission.ready());
  EXPECT_EQ(first(out), 6.0f);
}

TEST_P(LifetimeTest, ADefaultSubmissionIsReady) {
  Submission nothing;
  EXPECT_TRUE(nothing.ready());
  EXPECT_NO_THROW(nothing.wait());
  Sequence empty(device, 0);
  Submission none = empty.submit();
  EXPECT_TRUE(none.ready());
}

TEST_P(LifetimeTest, ASubmissionBecomesReadyAndItsResultsAreThereAfterWait) {
  Buffer in(device, kLifetimeCount * 4), out(device, kLifetimeCount * 4);
  fill(in, 3.0f);
  Sequence sequence(device, 0);
  sequence.dispatch(add_one, {&in, &out}, kLifetimeGrid);
  Submission submission = sequence.submit();
  submission.wait();
  EXPECT_TRUE(submission.ready());
  EXPECT_EQ(out.download<float>(), std::vector<float>(kLifetimeCount, 4.0f));
}

// One recording submitted again while earlier submissions of it run: each adds one to the same buffer, so
// the result counts the submissions that ran, in order.
TEST_P(LifetimeTest, ARecordingSubmittedManyTimesWithoutWaitingRunsEachTimeInOrder) {
  const auto add_in_place = test::spirv_of(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer Values { float values[]; };
void main() { values[gl_GlobalInvocationID.x] += 1.0; }
)");
  Kernel kernel(device, add_in_place, 1);
  Buffer values(device, kLifetimeCount * 4);
  fill(values, 0.0f);
  Sequence sequence(device, 0);
  sequence.dispatch(kernel, {&values}, kLifetimeGrid);
  std::vector<Submission> in_flight;
  for (int i = 0; i < 20; ++i) in_flight.push_back(sequence.submit());
  for (Submission& submission : in_flight) submission.wait();
  EXPECT_EQ(values.download<float>(), std::vector<float>(kLifetimeCount, 20.0f));
}

TEST_P(LifetimeTest, IndependentDispatchesShareNoBarrierAndDependentOnesGetOne) {
  Buffer a(device, kLifetimeCount * 4), b(device, kLifetimeCount * 4), c(device, kLifetimeCount * 4),
      d(device, kLifetimeCount * 4);
  fill(a, 1.0f);
  fill(c, 10.0f);
  Sequence independent(device, 0);
  independent.dispatch(add_one, {&a, &b}, kLifetimeGrid).dispatch(add_one, {&c, &d}, kLifetimeGrid);
  EXPECT_EQ(independent.barrier_count(), 0u);
  independent.run();
  EXPECT_EQ(first(b), 2.0f);
  EXPECT_EQ(first(d), 11.0f);

  Sequence two_readers(device, 0);
  two_readers.dispatch(add_one, {&a, &b}, kLifetimeGrid).dispatch(add_one, {&a, &d}, kLifetimeGrid);
  EXPECT_EQ(two_readers.barrier_count(), 0u) << "reading one buffer twice needs no barrier";

  Sequence chain(device, 0);  // read after write, then write after read
  chain.dispatch(add_one, {&a, &b}, kLifetimeGrid)
      .dispatch(add_one, {&b, &c}, kLifetimeGrid)
      .dispatch(add_one, {&d, &b}, kLifetimeGrid);
  EXPECT_EQ(chain.barrier_count(), 2u);
  chain.run();
  EXPECT_EQ(first(c), 3.0f);
  EXPECT_EQ(first(b), 12.0f);
}

TEST_P(LifetimeTest, AnUploadIsSeenByTheNextSubmissionAndADownloadWithoutOne) {
  Buffer in(device, kLifetimeCount * 4), out(device, kLifetimeCount * 4);
  fill(in, 7.0f);
  EXPECT_EQ(in.download<float>(), std::vector<float>(kLifetimeCount, 7.0f)) << "no submission in between";
  fill(in, 8.0f);
  fill(in, 9.0f);  // the later upload of the same range wins
  Sequence sequence(device, 0);
  sequence.dispatch(add_one, {&in, &out}, kLifetimeGrid).run();
  EXPECT_EQ(out.download<float>(), std::vector<float>(kLifetimeCount, 10.0f));
}

TEST_P(LifetimeTest, TransfersLargerThanTheStagingMemoryGoInPieces) {
  const size_t count = (40u << 20) / 4;  // 40 MiB: more than the staging memory holds at once
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i % 100003);
  Buffer buffer(device, count * 4);
  buffer.upload(std::span<const float>(values));
  EXPECT_EQ(buffer.download<float>(), values);
}

TEST_P(LifetimeTest, ABufferDestroyedWithItsUploadStillWaitingIsHarmless) {
  Buffer kept(device, kLifetimeCount * 4);
  fill(kept, 4.0f);
  {
    Buffer dropped(device, kLifetimeCount * 4);
    fill(dropped, 1.0f);
  }
  Buffer out(device, kLifetimeCount * 4);
  Sequence sequence(device, 0);
  sequence.dispatch(add_one, {&kept, &out}, kLifetimeGrid).run();
  EXPECT_EQ(first(out), 5.0f);
}

// Buffers and sequences made, used and destroyed in a random order, checked against a model of each
// buffer's value. Submissions are kept in flight at random; an upload or a download first waits for them,
// as the caller must.
TEST_P(LifetimeTest, RandomOrdersOfCreatingUsingAndDestroyingStayCorrect) {
  std::mt19937 random(GetParam() ? 2 : 1);
  struct Tracked {
    std::unique_ptr<Buffer> buffer;
    float value;
  };
  std::vector<Tracked> buffers;
  struct Kept {
    std::unique_ptr<Sequence> sequence;
    const Buffer* in;
    const Buffer* out;
  };
  std::vector<Kept> sequences;
  const auto value_of = [&](const Buffer* buffer) -> float& {
    for (Tracked& tracked : buffers)
      if (tracked.buffer.get() == buffer) return tracked.value;
    throw std::logic_error("a sequence ran with a buffer the test destroyed");
  };
  std::vector<Submission> in_flight;
  const auto wait_all = [&] {
    for (Submission& submission : in_flight) submission.wait();
    in_flight.clear();
  };
  const auto pick = [&](size_t size) { return std::uniform_int_distribution<size_t>(0, size - 1)(random); };
  for (int step = 0; step < 400; ++step) {
    const int action = std::uniform_int_distribution<int>(0, 9)(random);
    if (action <= 1 || buffers.size() < 2) {
      wait_all();
      const float value = static_cast<float>(step);
      buffers.push_back({std::make_unique<Buffer>(device, kLifetimeCount * 4), value});
      fill(*buffers.back().buffer, value);
    } else if (action == 2) {
      buffers.erase(buffers.begin() + static_cast<std::ptrdiff_t>(pick(buffers.size())));
    } else if (action <= 5) {
      // A new sequence of one to three dispatches, submitted and maybe kept in flight.
      const size_t in = pick(buffers.size());
      size_t out = pick(buffers.size());
      if (out == in) out = (in + 1) % buffers.size();
      auto sequence = std::make_unique<Sequence>(device, 0);
      const int dispatches = std::uniform_int_distribution<int>(1, 3)(random);
      for (int i = 0; i < dispatches; ++i) {
        sequence->dispatch(add_one, {buffers[in].buffer.get(), buffers[out].buffer.get()}, kLifetimeGrid);
        buffers[out].value = buffers[in].value + 1;
      }
      in_flight.push_back(sequence->submit());
      if (pick(2) == 0) sequences.push_back({std::move(sequence), buffers[in].buffer.get(), buffers[out].buffer.get()});
    } else if (action == 6 && !sequences.empty()) {
      sequences.erase(sequences.begin() + static_cast<std::ptrdiff_t>(pick(sequences.size())));
    } else if (action == 7 && !sequences.empty()) {
      // Again as recorded, unless one of its buffers died; then it is reset and kept empty.
      Kept& kept = sequences[pick(sequences.size())];
      try {
        in_flight.push_back(kept.sequence->submit());
        if (kept.in) value_of(kept.out) = value_of(kept.in) + 1;
      } catch (const std::logic_error& error) {
        ASSERT_THAT(error.what(), HasSubstr("was destroyed"));
        kept.sequence->reset();
        kept.in = kept.out = nullptr;
      }
    } else {
      wait_all();
      const Tracked& checked = buffers[pick(buffers.size())];
      ASSERT_EQ(checked.buffer->download<float>(), std::vector<float>(kLifetimeCount, checked.value))
          << "step " << step;
    }
  }
  wait_all();
  for (const Tracked& checked : buffers)
    EXPECT_EQ(checked.buffer->download<float>(), std::vector<float>(kLifetimeCount, checked.value));
  EXPECT_EQ(device.take_validation_errors(), std::vector<std::string>{});
}

}  // namespace
}  // namespace kernelgen
