// extra_subgroup_sizes: the subgroup sizes a kernel is validated at on a device besides its default, the
// smallest and largest of the device's VK_EXT_subgroup_size_control range, where the device can run it there.
#include "kernelgen/validation/subgroup_sizes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kernelgen {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

DeviceInfo ranged(uint32_t min, uint32_t max, uint32_t default_size) {
  DeviceInfo device;
  device.name = "Fixture GPU";
  device.subgroup_size = default_size;
  device.min_subgroup_size = min;
  device.max_subgroup_size = max;
  device.required_subgroup_size_stages = VK_SHADER_STAGE_COMPUTE_BIT;
  device.max_compute_workgroup_subgroups = 64;
  device.features.subgroup_size_control = true;
  return device;
}

TEST(ExtraSubgroupSizes, TheSmallestAndTheLargestWhereTheDefaultIsBetween) {
  EXPECT_THAT(extra_subgroup_sizes(ranged(8, 64, 32), 256), ElementsAre(8, 64));
}

TEST(ExtraSubgroupSizes, AnEndThatIsTheDefaultIsNotRunAgain) {
  EXPECT_THAT(extra_subgroup_sizes(ranged(32, 64, 64), 256), ElementsAre(32)) << "AMD RDNA under RADV";
  EXPECT_THAT(extra_subgroup_sizes(ranged(8, 32, 8), 256), ElementsAre(32));
}

TEST(ExtraSubgroupSizes, NoneWhereTheRangeIsTheDefaultAlone) {
  EXPECT_THAT(extra_subgroup_sizes(ranged(32, 32, 32), 256), IsEmpty()) << "an H200";
  EXPECT_THAT(extra_subgroup_sizes(ranged(8, 8, 8), 256), IsEmpty()) << "lavapipe with AVX2";
}

TEST(ExtraSubgroupSizes, NoneWhereComputeShadersCannotRequireASize) {
  DeviceInfo fragment_only = ranged(8, 64, 32);
  fragment_only.required_subgroup_size_stages = VK_SHADER_STAGE_FRAGMENT_BIT;
  EXPECT_THAT(extra_subgroup_sizes(fragment_only, 256), IsEmpty());
  DeviceInfo without_feature = ranged(8, 64, 32);
  without_feature.features.subgroup_size_control = false;
  EXPECT_THAT(extra_subgroup_sizes(without_feature, 256), IsEmpty());
  EXPECT_THAT(extra_subgroup_sizes(DeviceInfo{.subgroup_size = 32}, 256), IsEmpty()) << "no extension at all";
}

// 1024 invocations in subgroups of 8 are 128, more than the 64 a workgroup may have there.
TEST(ExtraSubgroupSizes, ASizeTooSmallForTheKernelsWorkgroupIsLeftOut) {
  EXPECT_THAT(extra_subgroup_sizes(ranged(8, 64, 32), 1024), ElementsAre(64));
  EXPECT_THAT(extra_subgroup_sizes(ranged(8, 64, 32), 512), ElementsAre(8, 64));
}

}  // namespace
}  // namespace kernelgen
