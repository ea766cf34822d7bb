#include "kernelgen/validation/subgroup_sizes.hpp"

#include <algorithm>

#include "kernelgen/subgroup_size.hpp"

namespace kernelgen {

std::vector<uint32_t> extra_subgroup_sizes(const DeviceInfo& device, uint32_t workgroup_invocations) {
  std::vector<uint32_t> sizes;
  for (const uint32_t size : {device.min_subgroup_size, device.max_subgroup_size}) {
    if (size == device.subgroup_size || std::find(sizes.begin(), sizes.end(), size) != sizes.end()) continue;
    if (!required_subgroup_size_problem(device, size, workgroup_invocations)) sizes.push_back(size);
  }
  return sizes;
}

}  // namespace kernelgen
