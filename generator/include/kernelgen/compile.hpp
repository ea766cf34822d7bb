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

}  // namespace kernelgen
