#include "kernelgen/error.hpp"

#include <vulkan/vulkan_core.h>

namespace kernelgen {

std::string vk_result_name(int result) {
  switch (static_cast<VkResult>(result)) {
#define KERNELGEN_RESULT(name) \
  case name:                   \
    return #name;
    KERNELGEN_RESULT(VK_SUCCESS)
    KERNELGEN_RESULT(VK_NOT_READY)
    KERNELGEN_RESULT(VK_TIMEOUT)
    KERNELGEN_RESULT(VK_INCOMPLETE)
    KERNELGEN_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    KERNELGEN_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KERNELGEN_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    KERNELGEN_RESULT(VK_ERROR_DEVICE_LOST)
    KERNELGEN_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    KERNELGEN_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    KERNELGEN_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    KERNELGEN_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    KERNELGEN_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    KERNELGEN_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    KERNELGEN_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KERNELGEN_RESULT(VK_ERROR_FRAGMENTED_POOL)
    KERNELGEN_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    KERNELGEN_RESULT(VK_ERROR_INVALID_SHADER_NV)
    KERNELGEN_RESULT(VK_ERROR_UNKNOWN)
#undef KERNELGEN_RESULT
    default:
      return std::string("VkResult(").append(std::to_string(result)).append(")");
  }
}

namespace {

std::string explain(int result) {
  switch (static_cast<VkResult>(result)) {
    case VK_ERROR_DEVICE_LOST:
      return "the GPU was lost (a kernel that hung or faulted, or a driver reset)";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "out of device memory";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "out of host memory";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "no Vulkan driver found; install one (for a CPU device: apt-get install mesa-vulkan-drivers)";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "a requested layer is missing (for validation: apt-get install vulkan-validationlayers)";
    case VK_TIMEOUT:
      return "timed out";
    default:
      return vk_result_name(result);
  }
}

}  // namespace

namespace {

std::string message(const std::string& action, int result) {
  std::string text = action;
  text.append(": ").append(explain(result)).append(" [").append(vk_result_name(result)).append("]");
  return text;
}

}  // namespace

VulkanError::VulkanError(int result, const std::string& action)
    : std::runtime_error(message(action, result)), result_(result) {}

bool VulkanError::device_lost() const { return result_ == VK_ERROR_DEVICE_LOST; }

}  // namespace kernelgen
