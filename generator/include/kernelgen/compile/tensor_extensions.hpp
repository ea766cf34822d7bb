#pragma once
#include <string>
#include <vector>

namespace kernelgen {

struct DeviceInfo;

// The tensor-core extensions a Vulkan device may expose, each with the GLSL extension a kernel uses it through:
// whether the device has it, whether this build's glslang compiles that GLSL (found by compiling a small kernel
// that uses it, once per process), and whether kernelgen's runtime enables it for kernels. A kernel may use one
// only where all three hold. `kernelgen devices` lists them; the prompt tells a model what it may use.
struct TensorExtension {
  std::string vulkan;  // "VK_NV_cooperative_matrix"
  std::string glsl;    // "GL_NV_cooperative_matrix"
  bool device_has = false;
  bool compiles_here = false;
  bool runtime_enables = false;
  // What a model needs to know to write a correct and fast kernel with it, beyond its GLSL specification, for
  // the prompt (docs/kernel-contract.md, "Variants", has a cooperative_matrix2 GEMM's skeleton); empty where
  // nothing is.
  std::string rules;
};

// VK_NV_cooperative_matrix, VK_KHR_cooperative_matrix, VK_NV_cooperative_matrix2, VK_KHR_shader_bfloat16 and
// VK_NV_cooperative_vector, in that order, for this device.
std::vector<TensorExtension> tensor_extensions(const DeviceInfo& device);

// Whether this build's glslang compiles a kernel that uses the GLSL extension (one of those above); false for
// any other name.
bool glsl_extension_compiles(const std::string& glsl_extension);

}  // namespace kernelgen
