#pragma once
#include <stdexcept>
#include <string>

namespace kernelgen {

// A Vulkan call failed. Carries the VkResult (as an int, so this header stays free of vulkan.h) and what
// kernelgen was doing, so "vkAllocateMemory failed" reads as "allocating 4 MiB for a buffer: out of device memory".
class VulkanError : public std::runtime_error {
 public:
  VulkanError(int result, const std::string& action);
  int result() const { return result_; }
  bool device_lost() const;

 private:
  int result_;
};

// The VkResult's enumerator name, e.g. "VK_ERROR_DEVICE_LOST".
std::string vk_result_name(int result);

}  // namespace kernelgen
