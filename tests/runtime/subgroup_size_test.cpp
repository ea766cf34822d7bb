// A kernel made to run at a required subgroup size (VK_EXT_subgroup_size_control, core in Vulkan 1.3): the
// rule of which sizes a device allows, what the device reports of its range, a kernel that runs at each end
// of it, and a size outside it refused with a message that names the size and the range.
#include "kernelgen/subgroup_size.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

// An AMD RDNA GPU as RADV describes it: subgroups of 32 to 64, 64 by default.
DeviceInfo rdna() {
  DeviceInfo device;
  device.name = "AMD Radeon RX 7900 XTX (RADV NAVI31)";
  device.subgroup_size = 64;
  device.min_subgroup_size = 32;
  device.max_subgroup_size = 64;
  device.required_subgroup_size_stages = VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  device.max_compute_workgroup_subgroups = 32;
  device.features.subgroup_size_control = true;
  return device;
}

TEST(SubgroupSizeProblem, APowerOfTwoWithinTheRangeIsAllowed) {
  EXPECT_EQ(required_subgroup_size_problem(rdna(), 32, 256), std::nullopt);
  EXPECT_EQ(required_subgroup_size_problem(rdna(), 64, 1024), std::nullopt);
}

TEST(SubgroupSizeProblem, ASizeOutsideTheRangeNamesTheSizeTheDeviceAndTheRange) {
  EXPECT_EQ(
      required_subgroup_size_problem(rdna(), 16, 64),
      "kernelgen: AMD Radeon RX 7900 XTX (RADV NAVI31) cannot run a kernel at subgroup size 16: its range is "
      "32 to 64");
  EXPECT_THAT(required_subgroup_size_problem(rdna(), 128, 64).value_or(""),
              HasSubstr("its range is 32 to 64"));
}

TEST(SubgroupSizeProblem, ASizeThatIsNotAPowerOfTwoIsRefused) {
  DeviceInfo device = rdna();
  device.min_subgroup_size = 8;
  EXPECT_THAT(required_subgroup_size_problem(device, 48, 64).value_or(""),
              HasSubstr("at subgroup size 48: not a power of two (its range is 8 to 64)"));
}

TEST(SubgroupSizeProblem, ADeviceWithoutTheFeatureOrWithoutItForComputeShadersAllowsNone) {
  DeviceInfo without = rdna();
  without.features.subgroup_size_control = false;
  EXPECT_THAT(required_subgroup_size_problem(without, 64, 64).value_or(""),
              HasSubstr("it lacks VK_EXT_subgroup_size_control's subgroupSizeControl feature"));
  DeviceInfo fragment_only = rdna();
  fragment_only.required_subgroup_size_stages = VK_SHADER_STAGE_FRAGMENT_BIT;
  EXPECT_THAT(required_subgroup_size_problem(fragment_only, 64, 64).value_or(""),
              HasSubstr("no compute shader (requiredSubgroupSizeStages)"));
}

// 1024 invocations are 32 subgroups of 32, which the device allows, and 64 of 16, which it does not.
TEST(SubgroupSizeProblem, AWorkgroupNeedingMoreSubgroupsThanTheDeviceAllowsIsRefused) {
  DeviceInfo intel = rdna();
  intel.min_subgroup_size = 8;
  intel.max_subgroup_size = 32;
  EXPECT_EQ(required_subgroup_size_problem(intel, 32, 1024), std::nullopt);
  EXPECT_THAT(required_subgroup_size_problem(intel, 16, 1024).value_or(""),
              HasSubstr("a workgroup of 1024 invocations needs 64 subgroups of that size, and it allows 32 "
                        "(maxComputeWorkgroupSubgroups)"));
}

// Each invocation writes the subgroup size it runs at.
const std::string kSubgroupSizes = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint sizes[]; };
void main() { sizes[gl_GlobalInvocationID.x] = gl_SubgroupSize; }
)";

// The Khronos layer where it is installed: a pipeline made against the extension's rules is one of its
// errors.
DeviceOptions checked() {
  return {.validation = Device::validation_layer_available()};
}

TEST(RequiredSubgroupSize, TheDeviceReportsARangeOfPowersOfTwoAroundItsOwnSize) {
  const DeviceInfo info = Device(checked()).info();
  if (!info.features.subgroup_size_control)
    GTEST_SKIP() << info.name << " has no VK_EXT_subgroup_size_control";
  EXPECT_TRUE(std::has_single_bit(info.min_subgroup_size)) << info.min_subgroup_size;
  EXPECT_TRUE(std::has_single_bit(info.max_subgroup_size)) << info.max_subgroup_size;
  EXPECT_LE(info.min_subgroup_size, info.subgroup_size);
  EXPECT_LE(info.subgroup_size, info.max_subgroup_size);
  EXPECT_GT(info.max_compute_workgroup_subgroups, 0u);
  // What Mesa 22.3's lavapipe reports: its own width alone (8 with AVX2), for fragment and compute shaders.
  if (info.driver.find("llvmpipe") != std::string::npos) {
    EXPECT_EQ(info.min_subgroup_size, info.subgroup_size);
    EXPECT_EQ(info.max_subgroup_size, info.subgroup_size);
    EXPECT_TRUE(info.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT);
  }
}

TEST(RequiredSubgroupSize, AKernelMadeAtEitherEndOfTheRangeRunsAtThatSize) {
  Device device(checked());
  const DeviceInfo& info = device.info();
  if (!info.features.subgroup_size_control)
    GTEST_SKIP() << info.name << " has no VK_EXT_subgroup_size_control";
  for (const uint32_t size : {info.min_subgroup_size, info.max_subgroup_size}) {
    Kernel kernel(device, test::spirv_of(kSubgroupSizes), 2, 0, size);
    Buffer in(device, 4), out(device, 64 * 4);
    Sequence sequence(device, 0);
    sequence.dispatch(kernel, {&in, &out}, {1, 1, 1}).run();
    EXPECT_EQ(out.download<uint32_t>(), std::vector<uint32_t>(64, size)) << "required " << size;
  }
  EXPECT_THAT(device.take_validation_errors(), ::testing::IsEmpty());
}

TEST(RequiredSubgroupSize, ASizeOutsideTheRangeOrTooSmallForTheWorkgroupIsRefusedNamingIt) {
  Device device(checked());
  const DeviceInfo& info = device.info();
  if (!info.features.subgroup_size_control)
    GTEST_SKIP() << info.name << " has no VK_EXT_subgroup_size_control";
  const std::vector<uint32_t> spirv = test::spirv_of(kSubgroupSizes);
  const std::string range = "its range is " + std::to_string(info.min_subgroup_size) + " to " +
                            std::to_string(info.max_subgroup_size);
  const uint32_t above = info.max_subgroup_size * 2;
  try {
    const Kernel kernel(device, spirv, 2, 0, above);
    ADD_FAILURE() << "made a kernel at subgroup size " << above;
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "kernelgen: " + info.name +
                                             " cannot run a kernel at subgroup size " +
                                             std::to_string(above) + ": " + range);
  }
  // A workgroup as large as the device runs, at its smallest size: more subgroups than one may have, where
  // the device's limit is below what that needs (lavapipe: 1024 invocations in subgroups of 8 are 128, it
  // allows 32).
  const uint32_t invocations = info.max_workgroup_size[0] < info.max_workgroup_invocations
                                   ? info.max_workgroup_size[0]
                                   : info.max_workgroup_invocations;
  if (invocations <= info.min_subgroup_size * info.max_compute_workgroup_subgroups)
    GTEST_SKIP() << info.name << " runs a workgroup of " << invocations << " at its smallest subgroup size";
  std::string wide = kSubgroupSizes;
  wide.replace(wide.find("local_size_x = 64"), 17, "local_size_x = " + std::to_string(invocations));
  try {
    const Kernel kernel(device, test::spirv_of(wide), 2, 0, info.min_subgroup_size);
    ADD_FAILURE() << "made a kernel of " << invocations << " invocations at subgroup size "
                  << info.min_subgroup_size;
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("a workgroup of " + std::to_string(invocations) + " invocations needs "));
  }
}

}  // namespace
}  // namespace kernelgen
