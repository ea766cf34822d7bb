#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kernelgen {

struct Compilation {
  bool ok = false;
  std::vector<uint32_t> spirv;
  std::string log;  // glslang's errors and warnings, with line numbers of the submitted source
};

// GLSL compute shader -> SPIR-V for Vulkan 1.2, with glslang in process. A shader that does not compile is an
// ordinary outcome (ok = false, log says why), not an exception.
Compilation compile_glsl(const std::string& source);

// This build's glslang as a manifest records it, e.g. "glslang 12.0.0". Another version may compile the same
// source to other SPIR-V.
std::string compiler_version();

// This build's SPIRV-Tools (whose validator checks every module) as it names itself, e.g. "SPIRV-Tools
// v2025.1".
std::string validator_version();

// What compile_glsl writes into word 2 of the SPIR-V header: glslang's tool id (8) in the high 16 bits and
// the version of its SPIR-V generator in the low 16.
uint32_t spirv_generator_word();

}  // namespace kernelgen
