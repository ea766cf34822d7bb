#pragma once
#include <vulkan/vulkan_core.h>

#include <string>

#include "kernelgen/error.hpp"

namespace kernelgen {

// Throws VulkanError naming the action unless the call succeeded.
inline void vk_check(VkResult result, const std::string& action) {
  if (result != VK_SUCCESS) throw VulkanError(result, action);
}

// A command pool for the queue family whose command buffers can be reset one by one.
inline VkCommandPool create_command_pool(VkDevice device, uint32_t queue_family, const std::string& purpose) {
  VkCommandPoolCreateInfo create{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  create.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  create.queueFamilyIndex = queue_family;
  VkCommandPool pool = VK_NULL_HANDLE;
  vk_check(vkCreateCommandPool(device, &create, nullptr, &pool), "creating a command pool" + purpose);
  return pool;
}

}  // namespace kernelgen
