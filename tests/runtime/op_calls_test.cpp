// What a generated op checks of a call and what it binds (cmake/templates/op.cpp.in), on the catalog's relu
// wrapper running a stand-in kernel: this file defines the kernel data the build step would write (spirv(),
// grid(), ...), with a kernel that writes every element its output binding holds. And the sizes of bmm's
// tensors, which overflow a size_t at the largest dims.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <kernelgen/ops/bmm.hpp>
#include <kernelgen/ops/relu.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "shaders.hpp"

namespace kernelgen::ops {

namespace {
Grid stand_in_grid{1, 1, 1};  // what the stand-in's grid() returns; a test may set it
}  // namespace

std::span<const uint32_t> relu::spirv() {
  static const std::vector<uint32_t> words = test::spirv_of(test::kOnesToLength);
  return words;
}
Grid relu::grid(const Dims&) {
  return stand_in_grid;
}
const char* relu::dispatch() {
  return "1 1 1";
}
const char* relu::author() {
  return "hand-written";
}
std::span<const relu::Variant> relu::variants() {
  return {};
}

}  // namespace kernelgen::ops

namespace kernelgen {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using Relu = ops::relu;

class OpCallTest : public ::testing::Test {
 protected:
  void TearDown() override { ops::stand_in_grid = {1, 1, 1}; }

  Device device;
  Relu relu{device};
  const Relu::Dims dims{2};
  Buffer x{device, Relu::x_bytes(dims)};
};

// Validation binds each tensor at exactly its bytes, so an application must too: a kernel that loops to
// y.length() writes the tensor, not the tail of a larger buffer.
TEST_F(OpCallTest, EachTensorIsBoundAtExactlyItsBytes) {
  const size_t tail = 1000;
  Buffer y(device, Relu::y_bytes(dims) + tail * sizeof(float));
  y.upload(std::span<const float>(std::vector<float>(Relu::y_elements(dims) + tail, -1.0f)));
  relu(dims, x, y);
  std::vector<float> expected(Relu::y_elements(dims), 1.0f);
  expected.resize(Relu::y_elements(dims) + tail, -1.0f);
  EXPECT_EQ(y.download<float>(), expected);
}

TEST_F(OpCallTest, AnInputPassedAsTheOutputIsRefused) {
  EXPECT_THAT([&] { relu(dims, x, x); },
              ThrowsMessage<std::invalid_argument>(
                  AllOf(HasSubstr("kernelgen::ops::relu: output y is the same Buffer as input x"),
                        HasSubstr("give y a Buffer of its own"))));
}

// A tensor bound inside a larger buffer (a KV cache's next rows): the op writes exactly its bytes from the slice's
// offset, and the rest of the buffer keeps what it held.
TEST_F(OpCallTest, ASliceBindsItsTensorFromItsOffset) {
  const uint64_t alignment = std::max<uint64_t>(device.info().min_storage_buffer_offset_alignment, 4);
  const size_t before = alignment / sizeof(float), after = 100;
  const size_t elements = Relu::y_elements(dims);
  Buffer y(device, (before + elements + after) * sizeof(float));
  y.upload(std::span<const float>(std::vector<float>(before + elements + after, -1.0f)));
  Sequence sequence(device);
  relu.record(sequence, dims, std::vector<BufferSlice>{{&x, 0}, {&y, alignment}});
  sequence.run();
  std::vector<float> expected(before, -1.0f);
  expected.resize(before + elements, 1.0f);
  expected.resize(before + elements + after, -1.0f);
  EXPECT_EQ(y.download<float>(), expected);
}

TEST_F(OpCallTest, ASliceTooShortFromItsOffsetIsRefused) {
  const uint64_t alignment = std::max<uint64_t>(device.info().min_storage_buffer_offset_alignment, 4);
  Buffer y(device, Relu::y_bytes(dims));
  Sequence sequence(device);
  EXPECT_THAT([&] { relu.record(sequence, dims, std::vector<BufferSlice>{{&x, 0}, {&y, alignment}}); },
              ThrowsMessage<std::invalid_argument>(HasSubstr(
                  "kernelgen::ops::relu: buffer 1 (y) must hold at least 16384 bytes from offset " +
                  std::to_string(alignment) + ", it holds 16384")));
}

// Disjoint parts of one Buffer may be an input and an output; overlapping ones may not.
TEST_F(OpCallTest, AnOutputOverlappingAnInputInOneBufferIsRefused) {
  const uint64_t bytes = Relu::x_bytes(dims);
  Buffer both(device, 2 * bytes);
  both.upload(std::span<const float>(std::vector<float>(2 * Relu::x_elements(dims), -1.0f)));
  Sequence sequence(device);
  EXPECT_THAT([&] { relu.record(sequence, dims, std::vector<BufferSlice>{{&both, 0}, {&both, bytes / 2}}); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("output y is the same Buffer as input x, at overlapping bytes")));
  relu.record(sequence, dims, std::vector<BufferSlice>{{&both, 0}, {&both, bytes}});
  sequence.run();
  std::vector<float> expected(Relu::x_elements(dims), -1.0f);
  expected.resize(2 * Relu::x_elements(dims), 1.0f);
  EXPECT_EQ(both.download<float>(), expected);
}

TEST_F(OpCallTest, AMovedFromBufferIsRefusedSayingSo) {
  Buffer y(device, Relu::y_bytes(dims));
  const Buffer moved_to(std::move(y));
  EXPECT_THAT(
      [&] { relu(dims, x, y); },
      ThrowsMessage<std::invalid_argument>(HasSubstr(
          "kernelgen::ops::relu: buffer 1 (y) must hold at least 16384 bytes, it holds 0 (a Buffer moved "
          "from)")));
}

// An op object of one Device given a Buffer, or recording into a Sequence, of another is refused; the same
// call with its own Device's objects runs.
TEST_F(OpCallTest, ABufferOrSequenceOfAnotherDeviceIsRefused) {
  Device other;
  Buffer foreign_y(other, Relu::y_bytes(dims));
  EXPECT_THAT([&] { relu(dims, x, foreign_y); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("buffer 1 was made on another Device object")));
  Sequence foreign_sequence(other);
  Buffer y(device, Relu::y_bytes(dims));
  EXPECT_THAT([&] { relu.record(foreign_sequence, dims, x, y); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("the Kernel was made on another Device")));
  relu(dims, x, y);
  EXPECT_EQ(y.download<float>(), std::vector<float>(Relu::y_elements(dims), 1.0f));
}

TEST_F(OpCallTest, AGridBeyondTheDevicesWorkgroupCountIsRefusedNamingTheOpGridAndLimit) {
  const auto limit = device.info().max_workgroup_count;
  if (limit[2] == UINT32_MAX) GTEST_SKIP() << device.info().name << " dispatches any grid";
  ops::stand_in_grid = {1, 1, limit[2] + 1};
  Buffer y(device, Relu::y_bytes(dims));
  EXPECT_THAT(
      [&] { relu(dims, x, y); },
      ThrowsMessage<std::invalid_argument>(AllOf(
          HasSubstr("kernelgen::ops::relu: grid 1 x 1 x " + std::to_string(limit[2] + 1) + " workgroups"),
          HasSubstr("(maxComputeWorkGroupCount " + std::to_string(limit[0]) + " x " +
                    std::to_string(limit[1]) + " x " + std::to_string(limit[2]) + ")"))));
}

// batch 2^15, m 2^22, k = n = 2^25: 2^62 elements of 4 bytes, 2^64 bytes, which wrapped round to 0 and let a
// 1-byte buffer pass for the tensor.
TEST(OpTensorSizes, BytesBeyondASizeTAreAnErrorNamingTheOpTensorAndDims) {
  const ops::bmm::Dims huge{1u << 15, 1u << 22, 1u << 25, 1u << 25};
  EXPECT_EQ(ops::bmm::a_elements(huge), std::size_t{1} << 62);
  EXPECT_THAT(
      [&] { (void)ops::bmm::a_bytes(huge); },
      ThrowsMessage<std::overflow_error>(AllOf(
          HasSubstr("kernelgen::ops::bmm: tensor a:f32[batch,m,k] at [32768, 4194304, 33554432] has more "
                    "bytes than a std::size_t counts"),
          HasSubstr("smaller dims"))));
  const ops::bmm::Dims more{1u << 31, 1u << 31, 1u << 31, 1};
  EXPECT_THAT(
      [&] { (void)ops::bmm::a_elements(more); },
      ThrowsMessage<std::overflow_error>(HasSubstr("tensor a:f32[batch,m,k] at [2147483648, 2147483648, "
                                                   "2147483648] has more elements")));
  EXPECT_EQ(ops::bmm::c_bytes({2, 3, 4, 5}), 2u * 3 * 5 * 4);
}

}  // namespace
}  // namespace kernelgen
