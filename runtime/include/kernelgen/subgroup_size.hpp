#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "kernelgen/device.hpp"

namespace kernelgen {

// Why a kernel whose workgroups have `workgroup_invocations` invocations cannot be made to run at subgroup
// size `size` on `device` (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo, VK_EXT_subgroup_size_control,
// core in Vulkan 1.3), or nullopt when it can: the device must have the subgroupSizeControl feature and allow
// it for compute shaders (requiredSubgroupSizeStages), the size must be a power of two from its
// minSubgroupSize to its maxSubgroupSize, and a workgroup must need at most maxComputeWorkgroupSubgroups
// subgroups of that size. The reason names the size, the device and its range. One rule for the runtime,
// which refuses such a Kernel, and the validator, which picks the sizes it validates a kernel at
// (generator/src/validation/subgroup_sizes.cpp).
std::optional<std::string> required_subgroup_size_problem(const DeviceInfo& device, uint32_t size,
                                                          uint32_t workgroup_invocations);

}  // namespace kernelgen
