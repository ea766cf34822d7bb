// Kernel: a compute pipeline whose SPIR-V must keep the contract (set 0, bindings 0..n-1, storage buffers),
// usable through a Sequence or recorded into a command buffer of the caller's own.
#include "kernelgen/kernel.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/sequence.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

class KernelTest : public ::testing::Test {
 protected:
  Device device;
  const std::vector<uint32_t> add_one = test::spirv_of(test::kAddOne);

  // The message Kernel's constructor throws for this SPIR-V and binding count, or "(accepted)".
  std::string rejection(const std::vector<uint32_t>& spirv, uint32_t bindings) {
    try {
      Kernel kernel(device, spirv, bindings);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "(accepted)";
  }
};

std::vector<float> iota_floats(size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i);
  return values;
}

TEST_F(KernelTest, AcceptsSpirvThatKeepsTheContract) {
  const Kernel kernel(device, add_one, 2);
  EXPECT_EQ(kernel.binding_count(), 2u);
}

// The driver's statistics where the device has VK_KHR_pipeline_executable_properties (NVIDIA's does; lavapipe
// 22.3 does not), each named and valued; none elsewhere, nor for a kernel on an engine's own VkDevice.
TEST_F(KernelTest, HasTheDriversStatisticsWhereTheDeviceReportsThem) {
  const Kernel kernel(device, add_one, 2);
  const auto statistics = kernel.statistics();
  EXPECT_EQ(statistics.empty(), !device.info().features.pipeline_executable_info);
  for (const PipelineStatistic& statistic : statistics) {
    EXPECT_FALSE(statistic.name.empty());
    EXPECT_FALSE(statistic.value.empty());
  }
  EXPECT_TRUE(Kernel(device.vk_device(), add_one, 2).statistics().empty());
}

TEST_F(KernelTest, RejectsMoreBindingsThanTheSpirvDeclares) {
  EXPECT_THAT(rejection(add_one, 3), HasSubstr("the SPIR-V declares no binding 2"));
}

TEST_F(KernelTest, RejectsFewerBindingsThanTheSpirvDeclares) {
  EXPECT_THAT(rejection(add_one, 1),
              HasSubstr("the SPIR-V declares (set 0, binding 1), the kernel expects storage buffers at set 0, bindings 0..0"));
}

TEST_F(KernelTest, RejectsWordsThatAreNotSpirv) {
  const std::vector<uint32_t> garbage{1, 2, 3, 4, 5, 6};
  EXPECT_THAT(rejection(garbage, 2), HasSubstr("not a SPIR-V module: wrong magic number"));
}

TEST_F(KernelTest, RejectsABindingOutsideSetZero) {
  const auto spirv = test::spirv_of(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float a[]; };
layout(set = 1, binding = 1, std430) writeonly buffer Out { float b[]; };
void main() { b[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x]; }
)");
  EXPECT_THAT(rejection(spirv, 2), HasSubstr("the SPIR-V declares (set 1, binding 1)"));
}

TEST_F(KernelTest, RejectsAGapInTheBindings) {
  const auto spirv = test::spirv_of(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float a[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Out { float b[]; };
void main() { b[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x]; }
)");
  EXPECT_THAT(rejection(spirv, 2), HasSubstr("the SPIR-V declares (set 0, binding 2)"));
}

TEST_F(KernelTest, AcceptsABindingDeclaredAsTwoViews) {
  const auto spirv = test::spirv_of(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float a[]; };
layout(set = 0, binding = 0, std430) readonly buffer In4 { vec4 a4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { float b[]; };
void main() { b[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x] + a4[0].x; }
)");
  const Kernel kernel(device, spirv, 2);
  EXPECT_EQ(kernel.binding_count(), 2u);
}

TEST_F(KernelTest, RejectsAUniformBlock) {
  const auto spirv = test::spirv_of(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std140) uniform In { vec4 a[16]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { vec4 b[]; };
void main() { b[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x % 16]; }
)");
  EXPECT_THAT(rejection(spirv, 2), HasSubstr("the SPIR-V declares (set 0, binding 0), the kernel expects storage buffers"));
}

TEST_F(KernelTest, RecordingWithTheWrongNumberOfBuffersThrows) {
  Kernel kernel(device, add_one, 2);
  Buffer only(device, 64);
  Sequence sequence(device, 0);
  try {
    sequence.dispatch(kernel, {&only}, {1, 1, 1});
    FAIL() << "recorded a dispatch with one buffer for two bindings";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("the kernel takes 2 buffers, got 1"));
  }
}

// The VkFFT-style use: the caller owns the command buffer and only asks the kernel to record into it.
TEST_F(KernelTest, RecordsIntoACommandBufferTheCallerOwns) {
  Kernel kernel(device.vk_device(), add_one, 2);
  Buffer in(device, 256 * 4), out(device, 256 * 4);
  in.upload(std::span<const float>(iota_floats(256)));

  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = device.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateCommandBuffers(device.vk_device(), &allocate, &command_buffer), VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(command_buffer, &begin), VK_SUCCESS);
  const std::vector<VkBuffer> buffers{in.vk_buffer(), out.vk_buffer()};
  kernel.record(command_buffer, buffers, {4, 1, 1});
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
  ASSERT_EQ(vkEndCommandBuffer(command_buffer), VK_SUCCESS);
  device.submit_and_wait(command_buffer);
  vkFreeCommandBuffers(device.vk_device(), device.vk_command_pool(), 1, &command_buffer);

  const auto got = out.download<float>();
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(i) + 1) << i;
}

TEST_F(KernelTest, ManyDistinctBufferListsOutgrowOneDescriptorPool) {
  // Descriptor sets are cached per buffer list, 16 to a pool; 20 lists need a second pool.
  Kernel kernel(device, add_one, 2);
  Buffer in(device, 64 * 4);
  in.upload(std::span<const float>(iota_floats(64)));
  std::vector<Buffer> outs;
  for (int i = 0; i < 20; ++i) outs.emplace_back(device, 64 * 4);
  Sequence sequence(device, 0);
  for (const Buffer& out : outs) sequence.dispatch(kernel, {&in, &out}, {1, 1, 1});
  sequence.run();
  for (const Buffer& out : outs) EXPECT_EQ(out.download<float>()[63], 64.0f);
}

TEST_F(KernelTest, StaysUsableAfterBeingMoved) {
  Kernel first(device, add_one, 2);
  Kernel second(std::move(first));
  Kernel third(device, add_one, 2);
  third = std::move(second);
  Buffer in(device, 64 * 4), out(device, 64 * 4);
  in.upload(std::span<const float>(iota_floats(64)));
  Sequence sequence(device, 0);
  sequence.dispatch(third, {&in, &out}, {1, 1, 1}).run();
  EXPECT_EQ(out.download<float>()[10], 11.0f);
}

// Issue 9's loop: buffers made on the stack each iteration get the addresses, and often the VkBuffer handles,
// of the last iteration's dead ones. Each iteration must compute on its own buffers, and the kernel's cache
// must not grow with the iterations: a set is freed when a buffer it names dies.
TEST_F(KernelTest, BuffersMadeAndDroppedInALoopNeverMeetAStaleSetAndTheCacheStaysSmall) {
  Kernel kernel(device, add_one, 2);
  Sequence sequence(device, 0);
  for (int iteration = 0; iteration < 100; ++iteration) {
    Buffer in(device, 64 * 4), out(device, 64 * 4);
    std::vector<float> values(64, static_cast<float>(iteration));
    in.upload(std::span<const float>(values));
    sequence.reset();
    sequence.dispatch(kernel, {&in, &out}, {1, 1, 1}).run();
    ASSERT_EQ(out.download<float>()[37], static_cast<float>(iteration) + 1) << "iteration " << iteration;
    EXPECT_EQ(kernel.cached_descriptor_sets(), 1u);
  }
  EXPECT_EQ(kernel.cached_descriptor_sets(), 0u) << "the last iteration's buffers died too";
}

TEST_F(KernelTest, ABufferDyingForgetsOnlyTheSetsThatNameIt) {
  Kernel kernel(device, add_one, 2);
  Buffer in(device, 64 * 4), kept(device, 64 * 4);
  Sequence sequence(device, 0);
  {
    Buffer dropped(device, 64 * 4);
    sequence.dispatch(kernel, {&in, &kept}, {1, 1, 1}).dispatch(kernel, {&in, &dropped}, {1, 1, 1}).run();
    EXPECT_EQ(kernel.cached_descriptor_sets(), 2u);
  }
  EXPECT_EQ(kernel.cached_descriptor_sets(), 1u);
  // A freed set's room is used again rather than a pool more.
  for (int i = 0; i < 40; ++i) {
    Buffer out(device, 64 * 4);
    sequence.reset();
    sequence.dispatch(kernel, {&in, &out}, {1, 1, 1}).run();
  }
  EXPECT_EQ(kernel.cached_descriptor_sets(), 1u);
}

TEST_F(KernelTest, AMovedKernelStillForgetsTheSetsOfDeadBuffers) {
  Kernel first(device, add_one, 2);
  Kernel kernel(std::move(first));
  Kernel assigned(device, add_one, 2);
  Buffer in(device, 64 * 4);
  Sequence sequence(device, 0);
  {
    Buffer out(device, 64 * 4);
    sequence.dispatch(kernel, {&in, &out}, {1, 1, 1}).run();
    EXPECT_EQ(kernel.cached_descriptor_sets(), 1u);
  }
  EXPECT_EQ(kernel.cached_descriptor_sets(), 0u);
  assigned = std::move(kernel);
  {
    Buffer out(device, 64 * 4);
    sequence.reset();
    sequence.dispatch(assigned, {&in, &out}, {1, 1, 1}).run();
    EXPECT_EQ(assigned.cached_descriptor_sets(), 1u);
  }
  EXPECT_EQ(assigned.cached_descriptor_sets(), 0u);
}

// slot[0] = token (a push constant): one append of a KV cache, written where its binding starts.
const std::string kWriteToken = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) writeonly buffer Slot { uint slot[]; };
layout(push_constant) uniform Dims { uint token; };
void main() { slot[0] = token; }
)";

// Appends to a KV cache, one token per dispatch, each bound at 4 bytes from an offset of its own: every
// binding is a new one, and the kernel's cache must not keep them all.
class KvCacheAppends : public KernelTest {
 protected:
  Kernel kernel{device, test::spirv_of(kWriteToken), 1, 1};
  // One slot per token, each at a multiple of the device's offset alignment.
  const uint64_t stride = std::max<uint64_t>(device.info().min_storage_buffer_offset_alignment, 4);

  // Records the appends of tokens [first, first + count) into `sequence`.
  void append(Sequence& sequence, const Buffer& cache, uint32_t first, uint32_t count) {
    for (uint32_t token = first; token < first + count; ++token) {
      const uint64_t offset = token * stride, range = 4;
      sequence.dispatch(kernel, {&cache}, {1, 1, 1}, std::span<const uint32_t>(&token, 1),
                        std::span<const uint64_t>(&range, 1), std::span<const uint64_t>(&offset, 1));
    }
  }
  // The token each slot holds.
  std::vector<uint32_t> slots(const Buffer& cache) const {
    const auto words = cache.download<uint32_t>();
    std::vector<uint32_t> tokens;
    for (size_t i = 0; i < words.size(); i += stride / 4) tokens.push_back(words[i]);
    return tokens;
  }
};

// Every binding is recorded, and every tenth recording of 500 also runs: lavapipe spends some 40 us on each
// dispatch it runs, and the cache meets the same bindings whether they run or not. A set written again for
// the wrong slot would show in a slot that holds another token, or one that should hold none.
TEST_F(KvCacheAppends, AHundredThousandKeepTheCacheAtItsBoundAndEachWritesItsOwnSlot) {
  constexpr uint32_t kAppends = 100'000, kPerSubmit = 500, kUnwritten = 0xffffffffu;
  Buffer cache(device, kAppends * stride);
  cache.upload(std::span<const uint32_t>(std::vector<uint32_t>(cache.size() / 4, kUnwritten)));
  Sequence sequence(device, 0);
  std::vector<uint32_t> expected(kAppends, kUnwritten);
  size_t largest = 0;
  for (uint32_t first = 0; first < kAppends; first += kPerSubmit) {
    sequence.reset();
    append(sequence, cache, first, kPerSubmit);
    if (first / kPerSubmit % 10 == 9) {
      sequence.run();
      std::iota(expected.begin() + first, expected.begin() + first + kPerSubmit, first);
    }
    largest = std::max(largest, kernel.cached_descriptor_sets());
  }
  EXPECT_EQ(largest, kDescriptorSetCacheCapacity);
  EXPECT_EQ(kernel.cached_descriptor_sets(), kDescriptorSetCacheCapacity);
  ASSERT_EQ(slots(cache), expected) << "a set given up and written again must bind its new slot only";

  // Token 0's binding was given up long ago: bound again, it is written afresh and writes its own slot.
  sequence.reset();
  const uint64_t offset = 0, range = 4;
  const uint32_t again = 4242;
  sequence.dispatch(kernel, {&cache}, {1, 1, 1}, std::span<const uint32_t>(&again, 1),
                    std::span<const uint64_t>(&range, 1), std::span<const uint64_t>(&offset, 1));
  sequence.run();
  expected[0] = again;
  EXPECT_EQ(slots(cache), expected);
  EXPECT_EQ(kernel.cached_descriptor_sets(), kDescriptorSetCacheCapacity);
}

// A recording binding more sets than the capacity holds them all: none is written again under it, so each
// dispatch still writes its own slot. Once the recording is reset the cache shrinks back to its bound.
TEST_F(KvCacheAppends, ARecordingBindingMoreThanTheCapacityKeepsEverySetItBinds) {
  const uint32_t count = kDescriptorSetCacheCapacity + 100;
  Buffer cache(device, 3 * count * stride);
  Sequence sequence(device, 0);
  append(sequence, cache, 0, count);
  EXPECT_EQ(kernel.cached_descriptor_sets(), count) << "every set is held by the recording";
  sequence.run();
  sequence.run();  // submitted again as recorded
  std::vector<uint32_t> tokens = slots(cache);
  tokens.resize(count);
  std::vector<uint32_t> expected(count);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(tokens, expected);

  sequence.reset();
  append(sequence, cache, count, count);
  sequence.run();
  EXPECT_LE(kernel.cached_descriptor_sets(), count) << "the sets let go are written again, not added to";
  sequence.reset();
  for (uint32_t token = 2 * count; kernel.cached_descriptor_sets() > kDescriptorSetCacheCapacity; ++token) {
    ASSERT_LT(token, 3 * count) << "the cache does not shrink back to its bound";
    append(sequence, cache, token, 1);
    sequence.run();
    sequence.reset();
  }
}

}  // namespace
}  // namespace kernelgen
