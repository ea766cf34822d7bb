// Buffer: bytes go up and come back unchanged; transfers outside the buffer are refused before any copy.
#include "kernelgen/buffer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "kernelgen/device.hpp"
#include "kernelgen/error.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

class BufferTest : public ::testing::Test {
 protected:
  Device device;
};

std::vector<uint32_t> ramp(size_t count, uint32_t start = 0) {
  std::vector<uint32_t> words(count);
  std::iota(words.begin(), words.end(), start);
  return words;
}

TEST_F(BufferTest, DownloadReturnsExactlyTheUploadedBits) {
  std::vector<uint32_t> words = ramp(1000, 0x3f000000u);
  words[0] = 0x7fe0deadu;  // a NaN with a payload
  words[1] = 0x80000000u;  // negative zero
  Buffer buffer(device, words.size() * 4);
  EXPECT_EQ(buffer.size(), 4000u);
  buffer.upload(std::span<const uint32_t>(words));
  EXPECT_EQ(buffer.download<uint32_t>(), words);
}

TEST_F(BufferTest, UploadAtAnOffsetChangesOnlyThatRange) {
  Buffer buffer(device, 16 * 4);
  buffer.upload(std::span<const uint32_t>(std::vector<uint32_t>(16, 0)));
  const std::vector<uint32_t> patch{7, 8, 9};
  buffer.upload(std::span<const uint32_t>(patch), 4 * 4);
  std::vector<uint32_t> expected(16, 0);
  std::copy(patch.begin(), patch.end(), expected.begin() + 4);
  EXPECT_EQ(buffer.download<uint32_t>(), expected);
}

TEST_F(BufferTest, DownloadsAPartialRangeAtAnOffset) {
  Buffer buffer(device, 100 * 4);
  buffer.upload(std::span<const uint32_t>(ramp(100)));
  std::vector<uint32_t> middle(10);
  buffer.download(middle.data(), 10 * 4, 50 * 4);
  EXPECT_EQ(middle, ramp(10, 50));
}

TEST_F(BufferTest, AnUploadPastTheEndThrowsNamingTheSizes) {
  Buffer buffer(device, 4000);
  const std::vector<uint32_t> two(2);
  try {
    buffer.upload(two.data(), 8, 3996);
    FAIL() << "an upload past the end was accepted";
  } catch (const std::out_of_range& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("an upload of 8 bytes at offset 3996 exceeds the buffer's 4000 bytes"));
  }
}

TEST_F(BufferTest, ADownloadPastTheEndThrows) {
  Buffer buffer(device, 64);
  std::vector<uint8_t> bytes(128);
  EXPECT_THROW(buffer.download(bytes.data(), 65), std::out_of_range);
  EXPECT_THROW(buffer.download(bytes.data(), 1, 64), std::out_of_range);
  EXPECT_NO_THROW(buffer.download(bytes.data(), 0, 64)) << "an empty range at the end is inside";
}

TEST_F(BufferTest, AnOffsetThatWouldWrapAroundIsRefused) {
  Buffer buffer(device, 64);
  uint8_t byte = 0;
  EXPECT_THROW(buffer.upload(&byte, 1, std::numeric_limits<std::size_t>::max()), std::out_of_range);
  EXPECT_THROW(buffer.upload(&byte, std::numeric_limits<std::size_t>::max(), 1), std::out_of_range);
}

TEST_F(BufferTest, AnImpossibleAllocationThrowsAVulkanErrorStatingTheSize) {
  try {
    Buffer buffer(device, std::size_t{1} << 50);
    FAIL() << "allocated a PiB";
  } catch (const VulkanError& error) {
    EXPECT_THAT(error.what(), HasSubstr("1073741824.00 MiB"));
    EXPECT_THAT(error.what(), HasSubstr("[" + vk_result_name(error.result()) + "]"));
  }
}

TEST_F(BufferTest, AnEmptyBufferIsRefused) {
  EXPECT_THROW(Buffer(device, 0), std::invalid_argument);
}

TEST_F(BufferTest, MovingTransfersTheBufferAndItsContents) {
  Buffer first(device, 8 * 4);
  first.upload(std::span<const uint32_t>(ramp(8)));
  const VkBuffer handle = first.vk_buffer();
  Buffer second(std::move(first));
  EXPECT_EQ(second.vk_buffer(), handle);
  EXPECT_EQ(first.vk_buffer(), VK_NULL_HANDLE);
  EXPECT_EQ(second.download<uint32_t>(), ramp(8));

  Buffer third(device, 4);
  third = std::move(second);
  EXPECT_EQ(third.vk_buffer(), handle);
  EXPECT_EQ(third.size(), 32u);
  EXPECT_EQ(third.download<uint32_t>(), ramp(8));
}

// A moved-from Buffer owns nothing and says so: a size it no longer has would let it pass for a tensor's
// buffer and bind a null descriptor.
TEST_F(BufferTest, AMovedFromBufferIsEmpty) {
  Buffer first(device, 64);
  Buffer second(std::move(first));
  EXPECT_EQ(first.size(), 0u);
  EXPECT_EQ(first.vk_buffer(), VK_NULL_HANDLE);
  EXPECT_EQ(first.download<uint32_t>(), std::vector<uint32_t>{});

  Buffer third(device, 4);
  third = std::move(second);
  EXPECT_EQ(second.size(), 0u);
  EXPECT_EQ(second.vk_buffer(), VK_NULL_HANDLE);
  EXPECT_EQ(third.size(), 64u);
}

TEST_F(BufferTest, TransfersWithAMovedFromBufferThrowSayingItWasMovedFrom) {
  Buffer first(device, 64);
  Buffer second(std::move(first));
  const std::vector<uint32_t> words(4);
  try {
    first.upload(std::span<const uint32_t>(words));
    FAIL() << "uploaded into a moved-from buffer";
  } catch (const std::out_of_range& error) {
    EXPECT_THAT(error.what(), HasSubstr("an empty Buffer (one moved from)"));
  }
  std::vector<uint32_t> back(4);
  EXPECT_THROW(first.download(back.data(), 16), std::out_of_range);
}

// A null pointer with bytes to move is refused before any copy, on mapped and staged memory alike; with no
// bytes it moves nothing and is no error, and a real pointer beside it still works.
TEST_F(BufferTest, TransfersFromOrIntoANullPointerAreRefusedNamingTheSize) {
  Device staged(DeviceOptions{.always_stage = true});
  for (Device* on : {&device, &staged}) {
    Buffer buffer(*on, 64);
    try {
      buffer.upload(nullptr, 16);
      FAIL() << "uploaded 16 bytes from a null pointer";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr("an upload of 16 bytes from a null pointer"));
    }
    try {
      buffer.download(nullptr, 8, 4);
      FAIL() << "downloaded 8 bytes into a null pointer";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr("a download of 8 bytes into a null pointer"));
    }
    EXPECT_NO_THROW(buffer.upload(nullptr, 0));
    EXPECT_NO_THROW(buffer.download(nullptr, 0));
    buffer.upload(std::span<const uint32_t>(ramp(16)));
    EXPECT_EQ(buffer.download<uint32_t>(), ramp(16));
  }
}

}  // namespace
}  // namespace kernelgen
