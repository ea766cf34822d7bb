#pragma once
// Small compute shaders for the runtime's tests, compiled when a test needs them.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/compile/compile.hpp"

namespace kernelgen::test {

inline std::vector<uint32_t> spirv_of(const std::string& glsl) {
  Compilation compiled = compile_glsl(glsl);
  if (!compiled.ok) throw std::runtime_error("a test shader does not compile:\n" + compiled.log);
  return compiled.spirv;
}

// out[i] = in[i] + 1 over the whole of `in`, 64 invocations per workgroup.
inline const std::string kAddOne = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { float out_values[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < in_values.length()) out_values[i] = in_values[i] + 1.0;
}
)";

// out[i] = 1 for every element of `out` its binding holds (out.length()), by one workgroup of 64 invocations:
// shows how much of a buffer a dispatch binds.
inline const std::string kOnesToLength = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { float out_values[]; };
void main() {
  for (uint i = gl_GlobalInvocationID.x; i < out_values.length(); i += 64u) out_values[i] = 1.0;
}
)";

}  // namespace kernelgen::test

namespace kernelgen::test {

// out[i] = in[i] + 1 after a long serial loop whose result is added as 0: milliseconds of GPU work, so a
// test can act while a submission still runs.
inline const std::string kSlowAddOne = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { float out_values[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float busy = in_values[0];
  for (uint k = 0u; k < 3000000u; ++k) busy = busy * 0.999999 + 1.0e-7;
  if (i < in_values.length()) out_values[i] = in_values[i] + 1.0 + (busy > 1.0e30 ? 1.0 : 0.0);
}
)";

}  // namespace kernelgen::test
