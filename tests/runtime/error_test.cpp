// VulkanError: a failed Vulkan call reads as what kernelgen was doing, what went wrong, and the VkResult.
#include "kernelgen/error.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan_core.h>

#include <stdexcept>
#include <string>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(VulkanError, NamesTheActionTheExplanationAndTheResult) {
  const VulkanError error(VK_ERROR_DEVICE_LOST, "waiting for work on llvmpipe");
  EXPECT_THAT(error.what(), StartsWith("waiting for work on llvmpipe: "));
  EXPECT_THAT(error.what(), HasSubstr("the GPU was lost"));
  EXPECT_THAT(error.what(), HasSubstr("[VK_ERROR_DEVICE_LOST]"));
  EXPECT_EQ(error.result(), VK_ERROR_DEVICE_LOST);
  EXPECT_TRUE(error.device_lost());
}

TEST(VulkanError, ExplainsOutOfMemoryInWords) {
  const VulkanError error(VK_ERROR_OUT_OF_DEVICE_MEMORY, "allocating 4.0000 MiB of device memory");
  EXPECT_EQ(std::string(error.what()),
            "allocating 4.0000 MiB of device memory: out of device memory [VK_ERROR_OUT_OF_DEVICE_MEMORY]");
  EXPECT_FALSE(error.device_lost());
}

TEST(VulkanError, TellsHowToInstallAMissingDriverOrLayer) {
  EXPECT_THAT(VulkanError(VK_ERROR_INCOMPATIBLE_DRIVER, "creating a Vulkan instance").what(),
              HasSubstr("mesa-vulkan-drivers"));
  EXPECT_THAT(VulkanError(VK_ERROR_LAYER_NOT_PRESENT, "enabling Vulkan validation").what(),
              HasSubstr("vulkan-validationlayers"));
}

TEST(VulkanError, FallsBackToTheResultNameWithoutAnExplanation) {
  EXPECT_EQ(std::string(VulkanError(VK_ERROR_TOO_MANY_OBJECTS, "creating a descriptor pool").what()),
            "creating a descriptor pool: VK_ERROR_TOO_MANY_OBJECTS [VK_ERROR_TOO_MANY_OBJECTS]");
}

TEST(VulkanError, IsARuntimeError) {
  try {
    throw VulkanError(VK_TIMEOUT, "waiting for a fence");
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("timed out [VK_TIMEOUT]"));
  }
}

TEST(VkResultName, NamesKnownResultsAndNumbersUnknownOnes) {
  EXPECT_EQ(vk_result_name(VK_SUCCESS), "VK_SUCCESS");
  EXPECT_EQ(vk_result_name(VK_ERROR_OUT_OF_POOL_MEMORY), "VK_ERROR_OUT_OF_POOL_MEMORY");
  EXPECT_EQ(vk_result_name(-12345), "VkResult(-12345)");
}

}  // namespace
}  // namespace kernelgen
