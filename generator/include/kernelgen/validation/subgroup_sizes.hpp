#pragma once
#include <cstdint>
#include <vector>

#include "kernelgen/device.hpp"

namespace kernelgen {

// The subgroup sizes a kernel whose workgroups have `workgroup_invocations` invocations is validated at on
// `device` besides the one it runs at there by default (DeviceInfo::subgroup_size): the smallest and the
// largest of the device's VK_EXT_subgroup_size_control range, in that order, each where it differs from the
// default and the device can run the kernel at it (required_subgroup_size_problem,
// kernelgen/subgroup_size.hpp). None where the device has no range, or a range of its default alone (an H200:
// 32 to 32; lavapipe: its own width).
std::vector<uint32_t> extra_subgroup_sizes(const DeviceInfo& device, uint32_t workgroup_invocations);

}  // namespace kernelgen
