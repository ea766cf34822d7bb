#include "kernelgen/subgroup_size.hpp"

#include <bit>

namespace kernelgen {

std::optional<std::string> required_subgroup_size_problem(const DeviceInfo& device, uint32_t size,
                                                          uint32_t workgroup_invocations) {
  const std::string cannot =
      "kernelgen: " + device.name + " cannot run a kernel at subgroup size " + std::to_string(size) + ": ";
  if (!device.features.subgroup_size_control)
    return cannot +
           "it lacks VK_EXT_subgroup_size_control's subgroupSizeControl feature (its subgroups are " +
           std::to_string(device.subgroup_size) + " wide)";
  if (!(device.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT))
    return cannot + "it allows a required subgroup size in no compute shader (requiredSubgroupSizeStages)";
  const std::string range = "its range is " + std::to_string(device.min_subgroup_size) + " to " +
                            std::to_string(device.max_subgroup_size);
  if (!std::has_single_bit(size)) return cannot + "not a power of two (" + range + ")";
  if (size < device.min_subgroup_size || size > device.max_subgroup_size) return cannot + range;
  const uint64_t subgroups = (uint64_t{workgroup_invocations} + size - 1) / size;
  if (subgroups > device.max_compute_workgroup_subgroups)
    return cannot + "a workgroup of " + std::to_string(workgroup_invocations) + " invocations needs " +
           std::to_string(subgroups) + " subgroups of that size, and it allows " +
           std::to_string(device.max_compute_workgroup_subgroups) + " (maxComputeWorkgroupSubgroups)";
  return std::nullopt;
}

}  // namespace kernelgen
