#pragma once
#include <vulkan/vulkan_core.h>

#include <string>

#include "kernelgen/error.hpp"

namespace kernelgen {

// Throws VulkanError naming the action unless the call succeeded.
inline void vk_check(VkResult result, const std::string& action) {
  if (result != VK_SUCCESS) throw VulkanError(result, action);
}

}  // namespace kernelgen
