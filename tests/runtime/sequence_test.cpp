// Sequence: several dispatches recorded into one command buffer, submitted once or again as recorded, with
// GPU timestamps between them.
#include "kernelgen/sequence.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

constexpr size_t kSequenceCount =
    1000;  // not a multiple of the workgroup size: the shader's bounds check matters
constexpr Grid kSequenceGrid{(kSequenceCount + 63) / 64, 1, 1};

class SequenceTest : public ::testing::Test {
 protected:
  Device device;
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};
  Buffer a{device, kSequenceCount * 4}, b{device, kSequenceCount * 4}, c{device, kSequenceCount * 4};

  void upload(Buffer& buffer, float value) {
    buffer.upload(std::span<const float>(std::vector<float>(kSequenceCount, value)));
  }
  static std::vector<float> all(float value) { return std::vector<float>(kSequenceCount, value); }
};

TEST_F(SequenceTest, ASecondDispatchSeesTheFirstOnesOutputInOneSubmit) {
  upload(a, 1.0f);
  upload(b, -100.0f);
  upload(c, -100.0f);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &b}, kSequenceGrid).dispatch(add_one, {&b, &c}, kSequenceGrid);
  sequence.run();
  EXPECT_EQ(b.download<float>(), all(2.0f));
  EXPECT_EQ(c.download<float>(), all(3.0f));
}

TEST_F(SequenceTest, ResubmittingRunsTheRecordingAgainOnTheBuffersCurrentContents) {
  upload(a, 1.0f);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &b}, kSequenceGrid).dispatch(add_one, {&b, &c}, kSequenceGrid);
  sequence.run();
  EXPECT_EQ(c.download<float>(), all(3.0f));
  upload(a, 10.0f);
  sequence.run();
  EXPECT_EQ(c.download<float>(), all(12.0f));
}

TEST_F(SequenceTest, RecordingMoreAfterASubmitNeedsAReset) {
  upload(a, 1.0f);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &b}, kSequenceGrid).run();
  EXPECT_THROW(sequence.dispatch(add_one, {&b, &c}, kSequenceGrid), std::logic_error);
  sequence.reset();
  upload(c, 0.0f);
  sequence.dispatch(add_one, {&a, &c}, kSequenceGrid).run();
  EXPECT_EQ(c.download<float>(), all(2.0f));
}

TEST_F(SequenceTest, FillWritesTheWordOverTheWholeBufferBeforeTheNextDispatch) {
  upload(a, 0.0f);
  Sequence sequence(device);
  sequence.fill(a, std::bit_cast<uint32_t>(4.0f)).dispatch(add_one, {&a, &b}, kSequenceGrid).run();
  EXPECT_EQ(a.download<float>(), all(4.0f));
  EXPECT_EQ(b.download<float>(), all(5.0f));
}

// A copy writes any number of bytes (7 here, which fill() cannot: it writes whole words), and needs a source as
// large as its target, other than it, on the same Device.
TEST_F(SequenceTest, CopyWritesTheSourcesFirstBytesOverTheWholeTargetBeforeTheNextDispatch) {
  Buffer from(device, 8), to(device, 7), small(device, 4);
  from.upload(std::span<const uint8_t>(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  to.upload(std::span<const uint8_t>(std::vector<uint8_t>(7, 0)));
  upload(a, 0.0f);
  upload(c, 3.0f);
  Sequence sequence(device);
  sequence.copy(from, to).copy(c, a).dispatch(add_one, {&a, &b}, kSequenceGrid).run();
  EXPECT_EQ(to.download<uint8_t>(), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(b.download<float>(), all(4.0f));
  Sequence refused(device);
  EXPECT_THAT([&] { refused.copy(small, to); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("copy of a Buffer of 4 bytes from byte 0 over one of 7; the source must hold as "
                                       "many past the offset")));
  EXPECT_THROW(refused.copy(a, a), std::invalid_argument);
  Device other;
  Buffer foreign(other, 8);
  EXPECT_THAT([&] { refused.copy(foreign, to); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("the Buffer copied was made on another Device object")));
}

// From an offset, a copy takes the target's size of bytes from there on (the timing harness's read flush), and
// refuses an offset that leaves fewer, or lies past the source's end.
TEST_F(SequenceTest, ACopyFromAnOffsetTakesTheBytesFromThere) {
  Buffer from(device, 8), to(device, 3);
  from.upload(std::span<const uint8_t>(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  Sequence sequence(device);
  sequence.copy(from, to, 5).run();
  EXPECT_EQ(to.download<uint8_t>(), (std::vector<uint8_t>{6, 7, 8}));
  Sequence refused(device);
  EXPECT_THAT([&] { refused.copy(from, to, 6); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("copy of a Buffer of 8 bytes from byte 6 over one of 3")));
  EXPECT_THROW(refused.copy(from, to, 9), std::invalid_argument);
  EXPECT_THROW(refused.copy(from, to, UINT64_MAX), std::invalid_argument);
}

// An offset starts a binding inside its buffer: the kernel's .length() counts from there, and a misaligned
// offset is refused naming the device's alignment.
TEST_F(SequenceTest, ADispatchBindsEachBufferFromItsOffset) {
  Kernel ones_to_length(device, test::spirv_of(test::kOnesToLength), 2);
  const uint64_t alignment = std::max<uint64_t>(device.info().min_storage_buffer_offset_alignment, 4);
  ASSERT_LT(alignment + 4, kSequenceCount * 4)
      << "the test's buffers are smaller than the device's alignment";
  upload(b, -1.0f);
  Sequence sequence(device);
  const std::vector<uint64_t> offsets{0, alignment}, ranges{kSequenceCount * 4, 8};
  sequence.dispatch(ones_to_length, {&a, &b}, Grid{}, {}, ranges, offsets).run();
  std::vector<float> expected = all(-1.0f);
  expected[alignment / 4] = expected[alignment / 4 + 1] = 1.0f;
  EXPECT_EQ(b.download<float>(), expected);

  sequence.reset();
  if (alignment > 4) {
    const std::vector<uint64_t> misaligned{0, alignment + 4};
    EXPECT_THAT([&] { sequence.dispatch(ones_to_length, {&a, &b}, Grid{}, {}, ranges, misaligned); },
                ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
                    "buffer 1: offset " + std::to_string(alignment + 4) + " is not a multiple of")));
  }
  const std::vector<uint64_t> past_the_end{0, alignment}, too_long{kSequenceCount * 4, kSequenceCount * 4};
  EXPECT_THAT([&] { sequence.dispatch(ones_to_length, {&a, &b}, Grid{}, {}, too_long, past_the_end); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
                  "bytes from offset " + std::to_string(alignment) + ", but the buffer holds")));
}

TEST_F(SequenceTest, SubmittingAnEmptySequenceDoesNothing) {
  Sequence sequence(device);
  EXPECT_NO_THROW(sequence.run());
  EXPECT_EQ(sequence.timestamp_count(), 0u);
}

// What a kernel's .length() counts is the range bound, so a dispatch bound at a tensor's bytes never writes
// the rest of a larger buffer; the same buffers at another range get a descriptor set of their own.
TEST_F(SequenceTest, ADispatchBindsEachBufferAtItsRange) {
  Kernel ones_to_length(device, test::spirv_of(test::kOnesToLength), 2);
  upload(b, -1.0f);
  const std::vector<uint64_t> ranges{kSequenceCount * 4, 100 * 4};
  Sequence sequence(device);
  sequence.dispatch(ones_to_length, {&a, &b}, Grid{}, {}, ranges).run();
  std::vector<float> expected = all(-1.0f);
  std::fill(expected.begin(), expected.begin() + 100, 1.0f);
  EXPECT_EQ(b.download<float>(), expected);

  const std::vector<uint64_t> more{kSequenceCount * 4, 200 * 4};
  sequence.reset();
  sequence.dispatch(ones_to_length, {&a, &b}, Grid{}, {}, more).run();
  std::fill(expected.begin(), expected.begin() + 200, 1.0f);
  EXPECT_EQ(b.download<float>(), expected);
  EXPECT_EQ(ones_to_length.cached_descriptor_sets(), 2u);
}

TEST_F(SequenceTest, ARangeOutsideItsBufferIsRefused) {
  Sequence sequence(device);
  const std::vector<uint64_t> too_long{kSequenceCount * 4, kSequenceCount * 4 + 4};
  EXPECT_THAT(
      [&] {
        sequence.dispatch(add_one, {&a, &b}, kSequenceGrid, {}, too_long);
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("buffer 1: a range of 4004 bytes from offset 0, but the buffer holds 4000")));
  const std::vector<uint64_t> empty{kSequenceCount * 4, 0};
  EXPECT_THROW(sequence.dispatch(add_one, {&a, &b}, kSequenceGrid, {}, empty), std::invalid_argument);
}

TEST_F(SequenceTest, AMovedFromBufferCannotBeBound) {
  const Buffer moved_to(std::move(b));
  Sequence sequence(device);
  EXPECT_THAT(
      [&] {
        sequence.dispatch(add_one, {&a, &b}, kSequenceGrid);
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::HasSubstr("buffer 1 is empty (a Buffer moved from)")));
  EXPECT_THROW(sequence.fill(b, 0), std::invalid_argument);
}

TEST_F(SequenceTest, AGridBeyondTheDevicesWorkgroupCountIsRefused) {
  const uint32_t limit = device.info().max_workgroup_count[2];
  if (limit == UINT32_MAX) GTEST_SKIP() << device.info().name << " dispatches any grid";
  Sequence sequence(device);
  EXPECT_THAT(
      [&] {
        sequence.dispatch(add_one, {&a, &b}, Grid{1, 1, limit + 1});
      },
      ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
          "grid 1 x 1 x " + std::to_string(limit + 1) + " workgroups is more than " + device.info().name)));
}

// Two Device objects (lavapipe opens twice): a Buffer or Kernel of the other one is refused by name, before
// anything is recorded, and the same dispatch with this Device's own objects runs.
TEST_F(SequenceTest, ABufferOfAnotherDeviceIsRefusedNamingBothDevices) {
  Device other;
  Buffer foreign(other, kSequenceCount * 4);
  Sequence sequence(device);
  const std::string both = "(" + other.info().name + ") than this Sequence's (" + device.info().name + ")";
  EXPECT_THAT(
      [&] {
        sequence.dispatch(add_one, {&a, &foreign}, kSequenceGrid);
      },
      ::testing::ThrowsMessage<std::invalid_argument>(
          ::testing::AllOf(::testing::HasSubstr("buffer 1 was made on another Device object " + both),
                           ::testing::HasSubstr("make it on the Sequence's Device"))));
  EXPECT_THAT([&] { sequence.fill(foreign, 0); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  ::testing::HasSubstr("the Buffer filled was made on another Device object " + both)));
  upload(a, 1.0f);
  sequence.dispatch(add_one, {&a, &b}, kSequenceGrid).run();
  EXPECT_EQ(b.download<float>(), all(2.0f));
}

TEST_F(SequenceTest, AKernelOfAnotherDeviceIsRefused) {
  Device other;
  Kernel foreign(other, test::spirv_of(test::kAddOne), 2);
  Sequence sequence(device);
  EXPECT_THAT(
      [&] {
        sequence.dispatch(foreign, {&a, &b}, kSequenceGrid);
      },
      ::testing::ThrowsMessage<std::invalid_argument>(::testing::AllOf(
          ::testing::HasSubstr("the Kernel was made on another Device (another VkDevice) than this "
                               "Sequence's (" +
                               device.info().name + ")"),
          ::testing::HasSubstr("make the Kernel, or the op object, on the Sequence's Device"))));
  Sequence theirs(other);
  Buffer x(other, kSequenceCount * 4), y(other, kSequenceCount * 4);
  x.upload(std::span<const float>(all(5.0f)));
  theirs.dispatch(foreign, {&x, &y}, kSequenceGrid).run();
  EXPECT_EQ(y.download<float>(), all(6.0f));
}

class SequenceTimestamps : public SequenceTest {
 protected:
  void SetUp() override {
    if (device.info().timestamp_period_ns == 0) GTEST_SKIP() << device.info().name << " has no timestamps";
  }
};

TEST_F(SequenceTimestamps, MeasureANonNegativeTimeAroundADispatch) {
  upload(a, 1.0f);
  Sequence sequence(device, 3);
  sequence.timestamp()
      .dispatch(add_one, {&a, &b}, kSequenceGrid)
      .timestamp()
      .dispatch(add_one, {&b, &c}, kSequenceGrid)
      .timestamp();
  sequence.run();
  EXPECT_EQ(sequence.timestamp_count(), 3u);
  EXPECT_GE(sequence.elapsed_ns(0, 1), 0.0);
  EXPECT_GE(sequence.elapsed_ns(1, 2), 0.0);
  EXPECT_GE(sequence.elapsed_ns(0, 2), sequence.elapsed_ns(0, 1));
  EXPECT_EQ(c.download<float>(), all(3.0f));
}

TEST_F(SequenceTimestamps, AreReadAgainOnEverySubmit) {
  upload(a, 1.0f);
  Sequence sequence(device, 2);
  sequence.timestamp().dispatch(add_one, {&a, &b}, kSequenceGrid).timestamp();
  sequence.run();
  sequence.run();
  EXPECT_GE(sequence.elapsed_ns(0, 1), 0.0);
}

TEST_F(SequenceTimestamps, AnIndexPastTheLastTimestampThrows) {
  Sequence sequence(device, 4);
  sequence.timestamp().timestamp();
  EXPECT_THROW(sequence.elapsed_ns(0, 1), std::out_of_range) << "nothing submitted yet";
  sequence.run();
  EXPECT_NO_THROW(sequence.elapsed_ns(0, 1));
  EXPECT_THROW(sequence.elapsed_ns(0, 2), std::out_of_range);
}

TEST_F(SequenceTimestamps, MoreThanTheMaximumThrows) {
  Sequence sequence(device, 2);
  sequence.timestamp().timestamp();
  EXPECT_THROW(sequence.timestamp(), std::length_error);
}

TEST_F(SequenceTimestamps, ResetStartsCountingAgain) {
  Sequence sequence(device, 2);
  sequence.timestamp().timestamp().run();
  sequence.reset();
  EXPECT_EQ(sequence.timestamp_count(), 0u);
  sequence.timestamp().timestamp().run();
  EXPECT_GE(sequence.elapsed_ns(0, 1), 0.0);
}

}  // namespace
}  // namespace kernelgen

namespace kernelgen {
namespace {

// Timestamps hold timestampValidBits bits; the bits above are undefined and the counter wraps.
TEST(TimestampTicks, IgnoreTheBitsAboveTheValidOnesAndCountAcrossAWrap) {
  EXPECT_EQ(timestamp_ticks(100, 350, 64), 250u);
  EXPECT_EQ(timestamp_ticks(0xdead000000000000u | 100, 0xbeef000000000000u | 350, 36), 250u) << "garbage above";
  EXPECT_EQ(timestamp_ticks((uint64_t{1} << 36) - 10, 15, 36), 25u) << "wrapped at 2^36";
  EXPECT_EQ(timestamp_ticks(~uint64_t{0} - 4, 5, 64), 10u) << "wrapped at 2^64";
}

TEST(UnbindableBuffer, NamesABufferBeyondTheDevicesStorageBufferRange) {
  DeviceInfo device;
  device.name = "Tiny GPU";
  device.max_storage_buffer_range = 1u << 27;
  const std::vector<uint64_t> fits{16, uint64_t{1} << 27};
  EXPECT_EQ(unbindable_buffer(fits, device), "");
  const std::vector<uint64_t> too_large{16, (uint64_t{1} << 27) + 4};
  EXPECT_THAT(unbindable_buffer(too_large, device),
              ::testing::HasSubstr("buffer 1 holds 134217732 bytes, more than Tiny GPU can bind to a kernel at once "
                                   "(maxStorageBufferRange 134217728 bytes)"));
}

TEST(UndispatchableGrid, NamesTheGridAndTheDevicesLimit) {
  DeviceInfo device;
  device.name = "Tiny GPU";
  device.max_workgroup_count = {65535, 65535, 65535};
  EXPECT_EQ(undispatchable_grid(Grid{65535, 1, 65535}, device), "");
  EXPECT_EQ(
      undispatchable_grid(Grid{1, 1, 65536}, device),
      "grid 1 x 1 x 65536 workgroups is more than Tiny GPU dispatches at once (maxComputeWorkGroupCount "
      "65535 x 65535 x 65535); use smaller dims per call");
}

TEST(DeviceInfoForTimestamps, AQueueWithTimestampsReportsItsValidBits) {
  const Device device;
  if (device.info().timestamp_period_ns == 0) GTEST_SKIP() << device.info().name << " has no timestamps";
  EXPECT_GE(device.info().timestamp_valid_bits, 36u);
  EXPECT_LE(device.info().timestamp_valid_bits, 64u);
}

}  // namespace
}  // namespace kernelgen
