#include "kernelgen/capabilities.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace kernelgen {

std::optional<CapabilityProblem> capability_problem(const SpirvInterface& interface, const DeviceInfo& device) {
  const DeviceFeatures& f = device.features;
  const uint32_t subgroup = device.subgroup_operations;  // VkSubgroupFeatureFlagBits
  const std::pair<const char*, bool> allowed[] = {
      {"Shader", true},
      {"Float16", f.shader_float16},
      {"Int8", f.shader_int8},
      {"Int16", f.shader_int16},
      {"Int64", f.shader_int64},
      {"Float64", f.shader_float64},
      {"StorageBuffer16BitAccess", f.storage_buffer_16bit},
      {"StorageBuffer8BitAccess", f.storage_buffer_8bit},
      {"VulkanMemoryModel", f.vulkan_memory_model},
      {"CooperativeMatrixNV", f.cooperative_matrix_nv},
      {"GroupNonUniform", (subgroup & 0x1) != 0},
      {"GroupNonUniformVote", (subgroup & 0x2) != 0},
      {"GroupNonUniformArithmetic", (subgroup & 0x4) != 0},
      {"GroupNonUniformBallot", (subgroup & 0x8) != 0},
      {"GroupNonUniformShuffle", (subgroup & 0x10) != 0},
      {"GroupNonUniformShuffleRelative", (subgroup & 0x20) != 0},
      {"GroupNonUniformClustered", (subgroup & 0x40) != 0},
      {"GroupNonUniformQuad", (subgroup & 0x80) != 0},
  };
  for (const std::string& capability : interface.capabilities) {
    const auto* found = std::find_if(std::begin(allowed), std::end(allowed),
                                     [&](const auto& entry) { return capability == entry.first; });
    if (found == std::end(allowed)) return CapabilityProblem{capability, false};
    if (!found->second) return CapabilityProblem{capability, true};
  }
  return std::nullopt;
}

bool runs_on(const DeviceInfo& device, std::span<const uint32_t> spirv) {
  const auto interface = reflect_spirv(spirv);
  return interface && !capability_problem(*interface, device);
}

}  // namespace kernelgen
