// Device: picking a Vulkan device by index, by name or by type, through DeviceOptions or $KERNELGEN_DEVICE.
#include "kernelgen/device.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

bool lists_llvmpipe() {
  const auto devices = Device::list();
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceInfo& info) { return info.name.find("llvmpipe") != std::string::npos; });
}

TEST(Device, ListsEveryDeviceWithItsLoaderIndex) {
  const auto devices = Device::list();
  ASSERT_FALSE(devices.empty());
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, i);
    EXPECT_FALSE(devices[i].name.empty());
    EXPECT_THAT((std::vector<std::string>{"discrete", "integrated", "virtual", "cpu", "other"}),
                ::testing::Contains(devices[i].type));
  }
}

TEST(Device, DefaultOpensAComputeQueueOnSomeDevice) {
  const test::ScopedEnv no_selector("KERNELGEN_DEVICE", nullptr);
  const Device device;
  EXPECT_NE(device.vk_device(), VK_NULL_HANDLE);
  EXPECT_NE(device.vk_queue(), VK_NULL_HANDLE);
  EXPECT_NE(device.vk_command_pool(), VK_NULL_HANDLE);
  EXPECT_FALSE(device.info().name.empty());
  EXPECT_GT(device.info().max_workgroup_invocations, 0u);
  EXPECT_GT(device.info().max_workgroup_count[0], 0u);
}

TEST(Device, SelectsByIndex) {
  const Device device(DeviceOptions{.selector = "0"});
  EXPECT_EQ(device.info().index, 0u);
  EXPECT_EQ(device.info().name, Device::list().at(0).name);
}

TEST(Device, SelectsByCaseInsensitiveNameSubstring) {
  if (!lists_llvmpipe()) GTEST_SKIP() << "no llvmpipe (lavapipe) device on this machine";
  const Device device(DeviceOptions{.selector = "LLVMpipe"});
  EXPECT_THAT(device.info().name, HasSubstr("llvmpipe"));
  EXPECT_EQ(device.info().type, "cpu");
}

TEST(Device, KernelgenDeviceSelectsByName) {
  if (!lists_llvmpipe()) GTEST_SKIP() << "no llvmpipe (lavapipe) device on this machine";
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "llvmpipe");
  const Device device;
  EXPECT_THAT(device.info().name, HasSubstr("llvmpipe"));
}

TEST(Device, KernelgenDeviceSelectsByIndex) {
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "0");
  const Device device;
  EXPECT_EQ(device.info().index, 0u);
}

TEST(Device, OptionsSelectorOverridesKernelgenDevice) {
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "no-such-device");
  const Device device(DeviceOptions{.selector = "0"});
  EXPECT_EQ(device.info().index, 0u);
}

TEST(Device, ASelectorMatchingNothingThrowsListingTheDevices) {
  const auto devices = Device::list();
  try {
    const Device device(DeviceOptions{.selector = "no-such-gpu"});
    FAIL() << "opened " << device.info().name << " for selector no-such-gpu";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("KERNELGEN_DEVICE='no-such-gpu'"));
    for (const DeviceInfo& info : devices)
      EXPECT_THAT(error.what(),
                  HasSubstr(std::to_string(info.index) + ": " + info.name + " (" + info.type + ")"));
  }
}

TEST(Device, AnIndexPastTheLastDeviceThrows) {
  const std::string past = std::to_string(Device::list().size());
  const test::ScopedEnv selector("KERNELGEN_DEVICE", past.c_str());
  EXPECT_THROW(Device(), std::runtime_error);
}

TEST(Device, RobustBufferAccessIsOnlyOnWhenAsked) {
  EXPECT_FALSE(Device().robust_buffer_access());
  VkPhysicalDeviceFeatures features{};
  const Device robust(DeviceOptions{.robust_buffer_access = true});
  vkGetPhysicalDeviceFeatures(robust.vk_physical_device(), &features);
  EXPECT_EQ(robust.robust_buffer_access(), static_cast<bool>(features.robustBufferAccess));
}

TEST(Device, FindsMemoryTypesByFlagsAndRejectsImpossibleOnes) {
  const Device device;
  const int host_visible = device.memory_type(~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  EXPECT_GE(host_visible, 0);
  EXPECT_EQ(device.memory_type(0u, 0), -1) << "no allowed type";
  EXPECT_EQ(device.memory_type(~0u, VK_MEMORY_PROPERTY_FLAG_BITS_MAX_ENUM), -1) << "no type has every flag";
}

TEST(Device, MovesWithoutLosingTheDevice) {
  Device first;
  const VkDevice handle = first.vk_device();
  Device second(std::move(first));
  EXPECT_EQ(second.vk_device(), handle);
}

}  // namespace
}  // namespace kernelgen
