#pragma once
// Replies a model could give for the catalog's relu (x, y: f32[batch,8,16,16], 2048 floats a batch item, the
// batch a push constant), for the search and end-to-end tests: a right kernel, a slow right one, a wrong one,
// and one with no code at all.
//
// The right and wrong kernels have workgroups of 32, each invocation a vec4: validation's largest sizes grow with
// the workgroup (a ragged batch above its width, and a whole workgroup plus a rest: 49 and 33-39 here, 385 and
// 257-263 at 256), so each validates in well under half the time a 256-wide one takes (2.4 against 6.2 s on
// lavapipe with the layer), and the tests run many searches. Four elements an invocation keep the catalog's
// timed size, batch=1024, within the 65535 workgroups a dispatch may have.
#include <string>

namespace kernelgen::test {

inline const std::string kReluKernel = R"(#version 450
// kernelgen: dispatch (batch * 512 + 31) / 32 1 1
layout(local_size_x = 32) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], vec4(0.0));
}
)";

// Leaky relu: INCORRECT_NUMERICAL for every negative input.
inline const std::string kLeakyReluKernel = R"(#version 450
// kernelgen: dispatch (batch * 512 + 31) / 32 1 1
layout(local_size_x = 32) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], 0.01 * x[i]);
}
)";

// Correct and slow: eight invocations per workgroup, one element each, stored `batch` times over. On
// lavapipe, at the tests' timed batch of 64, about 40 times kReluKernel's time (12 against 0.3 ms): a
// kernel only 3 times slower (one store) was once timed no slower beyond the noise while another test loaded
// both cores.
inline const std::string kSlowReluKernel = R"(#version 450
// kernelgen: dispatch batch * 256 1 1
layout(local_size_x = 8) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  // y may alias x as far as the compiler knows, so no pass folds the loop into one store.
  for (uint k = 0u; k < dims.batch; ++k) y[gl_GlobalInvocationID.x] = max(x[gl_GlobalInvocationID.x], 0.0);
}
)";

inline const std::string kReplyWithoutCode =
    "I would take the maximum of each element and zero, in parallel over all elements.";

// A kernel as a model replies with it: a sentence, then the shader in a ```glsl block.
inline std::string fenced(const std::string& kernel) {
  return "Here is the kernel.\n\n```glsl\n" + kernel + "```\n";
}

}  // namespace kernelgen::test
