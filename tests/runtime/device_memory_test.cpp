// DeviceMemory (runtime/src/device_memory.hpp): buffers sub-allocated from shared blocks, aligned, never
// overlapping, merged back when freed.
#include "device_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "device_internals.hpp"
#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"

namespace kernelgen {
namespace {

constexpr VkBufferUsageFlags kStorage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

TEST(DeviceMemory, SmallBuffersShareOneBlockAlignedAndApart) {
  Device device;
  DeviceMemory& memory = DeviceInternals::memory(device);
  const size_t blocks_before = memory.block_count();
  std::vector<BufferAllocation> allocations;
  for (int i = 0; i < 50; ++i)
    allocations.push_back(memory.create_buffer(1000 + 24 * i, kStorage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0));
  EXPECT_LE(memory.block_count(), blocks_before + 1) << "50 small buffers took a block each";
  for (size_t i = 0; i < allocations.size(); ++i) {
    VkMemoryRequirements needs;
    vkGetBufferMemoryRequirements(device.vk_device(), allocations[i].buffer, &needs);
    EXPECT_EQ(allocations[i].memory.offset % needs.alignment, 0u);
    EXPECT_FALSE(allocations[i].memory.dedicated);
    for (size_t j = 0; j < i; ++j) {
      if (allocations[i].memory.memory != allocations[j].memory.memory) continue;
      const auto& a = allocations[i].memory;
      const auto& b = allocations[j].memory;
      EXPECT_TRUE(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset) << i << " overlaps " << j;
    }
  }
  for (const auto& allocation : allocations) memory.destroy_buffer(allocation);
  EXPECT_EQ(memory.block_count(), std::max<size_t>(blocks_before, 1)) << "an emptied block is kept, one per type";
}

TEST(DeviceMemory, FreedRangesMergeSoAWholeBlockFitsAgain) {
  Device device;
  DeviceMemory& memory = DeviceInternals::memory(device);
  std::mt19937 random(7);
  std::vector<BufferAllocation> allocations;
  for (int i = 0; i < 200; ++i)
    allocations.push_back(memory.create_buffer(std::uniform_int_distribution<size_t>(1, 100000)(random), kStorage,
                                               VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0));
  std::shuffle(allocations.begin(), allocations.end(), random);
  for (const auto& allocation : allocations) memory.destroy_buffer(allocation);
  ASSERT_EQ(memory.block_count(), 1u);
  // A quarter block, the largest request a block serves, four times: only possible if the free ranges merged.
  std::vector<BufferAllocation> quarters;
  for (int i = 0; i < 4; ++i)
    quarters.push_back(memory.create_buffer(DeviceMemory::kBlockBytes / 4 - 4096, kStorage,
                                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0));
  EXPECT_EQ(memory.block_count(), 1u);
  for (const auto& allocation : quarters) memory.destroy_buffer(allocation);
}

TEST(DeviceMemory, ALargeBufferGetsMemoryOfItsOwn) {
  Device device;
  DeviceMemory& memory = DeviceInternals::memory(device);
  const BufferAllocation large =
      memory.create_buffer(DeviceMemory::kBlockBytes / 2, kStorage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  EXPECT_TRUE(large.memory.dedicated);
  EXPECT_EQ(large.memory.offset, 0u);
  memory.destroy_buffer(large);
}

TEST(DeviceMemory, BuffersInOneBlockKeepTheirOwnContents) {
  Device device;
  std::vector<Buffer> buffers;
  for (int i = 0; i < 20; ++i) {
    buffers.emplace_back(device, 100 * 4);
    buffers.back().upload(std::span<const float>(std::vector<float>(100, static_cast<float>(i))));
  }
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(buffers[i].download<float>(), std::vector<float>(100, static_cast<float>(i))) << i;
}

}  // namespace
}  // namespace kernelgen
