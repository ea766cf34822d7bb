// Which device a Device opens when its options name none: KERNELGEN_DEVICE, else the GPU ctest gave the test
// ($CTEST_RESOURCE_GROUP_0_GPU, "id:<index>,slots:1"), else the preferred type.
#include "device_selector.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "kernelgen/device.hpp"
#include "scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

TEST(CtestResourceId, IsTheIdOfCtestsAllocation) {
  EXPECT_EQ(ctest_resource_id("V", "id:3,slots:1"), "3");
  EXPECT_EQ(ctest_resource_id("V", "id:H100,slots:2"), "H100");
}

TEST(CtestResourceId, IsTheFirstOfSeveralAllocations) {
  EXPECT_EQ(ctest_resource_id("V", "id:1,slots:1;id:0,slots:1"), "1");
}

TEST(CtestResourceId, RejectsWhatCtestDoesNotWriteNamingTheVariable) {
  for (const char* value :
       {"1", "gpu:1", "id:,slots:1", "id:1", "id:1,slots:", "slots:1,id:1", "id:1,slots:x"}) {
    try {
      ctest_resource_id("CTEST_RESOURCE_GROUP_0_GPU", value);
      ADD_FAILURE() << "accepted '" << value << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(std::string("CTEST_RESOURCE_GROUP_0_GPU='") + value + "'"));
      EXPECT_THAT(error.what(), HasSubstr("id:<id>,slots:<n>"));
    }
  }
}

TEST(DeviceSelector, IsCtestsGpuWhenKernelgenDeviceIsUnsetOrEmpty) {
  const test::ScopedEnv ctest("CTEST_RESOURCE_GROUP_0_GPU", "id:1,slots:1");
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    const test::ScopedEnv selector("KERNELGEN_DEVICE", unset);
    const DeviceSelector chosen = device_selector({});
    EXPECT_EQ(chosen.text, "1");
    EXPECT_EQ(chosen.origin, "CTEST_RESOURCE_GROUP_0_GPU");
    EXPECT_THAT(chosen.fix, HasSubstr("kernelgen devices --resource-spec"));
  }
}

TEST(DeviceSelector, KernelgenDeviceAndTheOptionsWinOverCtest) {
  const test::ScopedEnv ctest("CTEST_RESOURCE_GROUP_0_GPU", "id:1,slots:1");
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "llvmpipe");
  EXPECT_EQ(device_selector({}).text, "llvmpipe");
  EXPECT_EQ(device_selector(DeviceOptions{.selector = "0"}).text, "0");
}

TEST(DeviceSelector, IsEmptyWithNeither) {
  const test::ScopedEnv ctest("CTEST_RESOURCE_GROUP_0_GPU", nullptr);
  const test::ScopedEnv selector("KERNELGEN_DEVICE", nullptr);
  EXPECT_EQ(device_selector({}).text, "");
}

TEST(DeviceSelector, CtestsGpuPicksTheDeviceWithThatIndex) {
  const std::string last = std::to_string(Device::list().size() - 1);
  const test::ScopedEnv selector("KERNELGEN_DEVICE", nullptr);
  const test::ScopedEnv ctest("CTEST_RESOURCE_GROUP_0_GPU", ("id:" + last + ",slots:1").c_str());
  EXPECT_EQ(std::to_string(Device::describe_selected().index), last);
}

TEST(DeviceSelector, ACtestGpuMatchingNoDeviceSaysToWriteTheSpecAgain) {
  const std::string past = std::to_string(Device::list().size());
  const test::ScopedEnv selector("KERNELGEN_DEVICE", nullptr);
  const test::ScopedEnv ctest("CTEST_RESOURCE_GROUP_0_GPU", ("id:" + past + ",slots:1").c_str());
  try {
    Device::describe_selected();
    FAIL() << "selected a device for gpu id " << past;
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("CTEST_RESOURCE_GROUP_0_GPU='" + past + "'"));
    EXPECT_THAT(error.what(), HasSubstr("kernelgen devices --resource-spec"));
  }
}

}  // namespace
}  // namespace kernelgen
