#pragma once
#include <vulkan/vulkan_core.h>

namespace kernelgen {

class Device;
class DeviceMemory;
class Queue;
class Transfers;

// What the runtime's own objects use of a Device and its users do not see.
struct DeviceInternals {
  static DeviceMemory& memory(const Device& device);
  static Transfers& transfers(const Device& device);
  static Queue& queue(const Device& device);
  static VkPipelineCache pipeline_cache(const Device& device);
};

}  // namespace kernelgen
