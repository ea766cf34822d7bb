#include "kernelgen/capabilities.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace kernelgen {

namespace {

// "float16" for f16, "sint8" for i8: VkComponentTypeKHR's names (DeviceInfo::cooperative_matrix_shapes).
std::string component_name(const SpirvScalar& scalar) {
  if (scalar.kind == "float") return "float" + std::to_string(scalar.width);
  if (scalar.kind == "int") return "sint" + std::to_string(scalar.width);
  if (scalar.kind == "uint") return "uint" + std::to_string(scalar.width);
  return "other";
}

// A subgroup-scope KHR matrix type the device does not list, described, or nullopt. Where the
// device lists no shapes (no VK_KHR_cooperative_matrix), the capability check speaks instead. Workgroup-scope
// matrices (cooperative_matrix2) take any size.
std::optional<std::string> unlisted_matrix_shape(const SpirvInterface& interface, const DeviceInfo& device) {
  if (device.cooperative_matrix_shapes.empty()) return std::nullopt;
  for (const SpirvMatrixType& matrix : interface.cooperative_matrices) {
    if (matrix.workgroup_scope) continue;
    const std::string component = component_name(matrix.component);
    const bool listed =
        std::any_of(device.cooperative_matrix_shapes.begin(), device.cooperative_matrix_shapes.end(),
                    [&](const CooperativeMatrixShape& shape) {
                      if (matrix.use == 0)
                        return matrix.rows == shape.m && matrix.columns == shape.k && component == shape.a;
                      if (matrix.use == 1)
                        return matrix.rows == shape.k && matrix.columns == shape.n && component == shape.b;
                      return matrix.rows == shape.m && matrix.columns == shape.n &&
                             (component == shape.c || component == shape.result);
                    });
    if (!listed) {
      const char* use = matrix.use == 0 ? "A" : matrix.use == 1 ? "B" : "accumulator";
      return std::string("CooperativeMatrixKHR with ") + use + " matrices of " + std::to_string(matrix.rows) +
             "x" + std::to_string(matrix.columns) + " " + component + " (a shape the device does not list)";
    }
  }
  return std::nullopt;
}

}  // namespace

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
      {"VulkanMemoryModelDeviceScope", f.vulkan_memory_model_device_scope},
      {"CooperativeMatrixNV", f.cooperative_matrix_nv},
      {"CooperativeMatrixKHR", f.cooperative_matrix_khr},
      {"CooperativeMatrixReductionsNV", f.cooperative_matrix_reductions},
      {"CooperativeMatrixConversionsNV", f.cooperative_matrix_conversions},
      {"CooperativeMatrixPerElementOperationsNV", f.cooperative_matrix_per_element_operations},
      {"CooperativeMatrixTensorAddressingNV", f.cooperative_matrix_tensor_addressing},
      {"TensorAddressingNV", f.cooperative_matrix_tensor_addressing},
      {"CooperativeMatrixBlockLoadsNV", f.cooperative_matrix_block_loads},
      {"GroupNonUniform", (subgroup & 0x1) != 0},
      {"GroupNonUniformVote", (subgroup & 0x2) != 0},
      {"GroupNonUniformArithmetic", (subgroup & 0x4) != 0},
      {"GroupNonUniformBallot", (subgroup & 0x8) != 0},
      {"GroupNonUniformShuffle", (subgroup & 0x10) != 0},
      {"GroupNonUniformShuffleRelative", (subgroup & 0x20) != 0},
      {"GroupNonUniformClustered", (subgroup & 0x40) != 0},
      {"GroupNonUniformQuad", (subgroup & 0x80) != 0},
  };
  // SPIR-V 1.6 (the GL_NV_cooperative_matrix2 kernels) runs on Vulkan 1.3 devices.
  if (interface.version >= 0x00010600u && device.api_version < VK_API_VERSION_1_3)
    return CapabilityProblem{"SPIR-V 1.6 (a Vulkan 1.3 device)", true};
  if (const auto shape = unlisted_matrix_shape(interface, device)) return CapabilityProblem{*shape, true};
  // Workgroup-scope matrices are a type's scope, not a capability.
  if (has_workgroup_scope_matrices(interface) && !f.cooperative_matrix_workgroup_scope)
    return CapabilityProblem{"CooperativeMatrixKHR of workgroup scope (cooperativeMatrixWorkgroupScope)",
                             true};
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
