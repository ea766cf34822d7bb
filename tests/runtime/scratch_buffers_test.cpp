// ScratchBuffers, a generated op's SCRATCH (docs/kernel-contract.md#scratch): zero when made, the same
// buffers for every call that fits them, new ones for a call at larger dims while the old ones stay bindable.
#include "kernelgen/scratch_buffers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernelgen/device.hpp"
#include "kernelgen/sequence.hpp"

namespace kernelgen {
namespace {

class ScratchBuffersTest : public ::testing::Test {
 protected:
  Device device;
};

// Made where a buffer of ones lay before (the device's memory blocks hand freed ranges out again).
TEST_F(ScratchBuffersTest, AreZeroWhenMadeAtLeastTheBytesAsked) {
  const std::vector<uint64_t> bytes{4 * 130 * 3, 4};
  {
    const std::vector<uint32_t> ones(bytes[0] / 4 + 64, 0xffffffffu);
    Buffer dirty(device, ones.size() * 4);
    dirty.upload(ones.data(), ones.size() * 4);
    device.flush_uploads();
  }
  ScratchBuffers scratch(device);
  const std::vector<const Buffer*> buffers = scratch.for_call(bytes);
  ASSERT_EQ(buffers.size(), 2u);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_GE(buffers[i]->size(), bytes[i]);
    for (uint32_t word : buffers[i]->download<uint32_t>()) ASSERT_EQ(word, 0u);
  }
}

TEST_F(ScratchBuffersTest, ACallThatFitsGetsTheSameBuffersALargerOneNewOnes) {
  ScratchBuffers scratch(device);
  const std::vector<const Buffer*> first = scratch.for_call(std::vector<uint64_t>{64, 4});
  const std::vector<const Buffer*> smaller = scratch.for_call(std::vector<uint64_t>{16, 4});
  EXPECT_EQ(smaller[0]->id(), first[0]->id());
  EXPECT_EQ(smaller[1]->id(), first[1]->id());
  const std::vector<const Buffer*> larger = scratch.for_call(std::vector<uint64_t>{4096, 4});
  EXPECT_NE(larger[0]->id(), first[0]->id());
  EXPECT_GE(larger[0]->size(), 4096u);
  EXPECT_GE(larger[1]->size(), 4u);
  for (uint32_t word : larger[0]->download<uint32_t>()) ASSERT_EQ(word, 0u);
}

// A recording that binds the first buffers stays submittable after a larger call made new ones: the old
// buffers live as long as the ScratchBuffers (a Buffer destroyed under a recording makes it refuse to be
// submitted).
TEST_F(ScratchBuffersTest, ARecordingOfTheOldBuffersOutlivesALargerCall) {
  ScratchBuffers scratch(device);
  const std::vector<const Buffer*> first = scratch.for_call(std::vector<uint64_t>{64});
  Sequence sequence(device, 0);
  sequence.fill(*first[0], 0x01020304u);
  scratch.for_call(std::vector<uint64_t>{1 << 20});
  EXPECT_NO_THROW(sequence.run());
  EXPECT_EQ(first[0]->download<uint32_t>().front(), 0x01020304u);
}

TEST_F(ScratchBuffersTest, AnOpWithoutScratchGetsNone) {
  ScratchBuffers scratch(device);
  EXPECT_TRUE(scratch.for_call({}).empty());
}

}  // namespace
}  // namespace kernelgen
