#pragma once
// Replies a model could give for the catalog's relu (x, y: f32[batch,8,16,16], 2048 floats a batch item, the
// batch a push constant), for the search and end-to-end tests: a right kernel, a wrong one, and one with no
// code at all.
#include <string>

namespace kernelgen::test {

inline const std::string kReluKernel = R"(#version 450
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 2048u) y[i] = max(x[i], 0.0);
}
)";

// Leaky relu: INCORRECT_NUMERICAL for every negative input.
inline const std::string kLeakyReluKernel = R"(#version 450
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 2048u) y[i] = x[i] > 0.0 ? x[i] : 0.01 * x[i];
}
)";

inline const std::string kReplyWithoutCode =
    "I would take the maximum of each element and zero, in parallel over all elements.";

// A kernel as a model replies with it: a sentence, then the shader in a ```glsl block.
inline std::string fenced(const std::string& kernel) {
  return "Here is the kernel.\n\n```glsl\n" + kernel + "```\n";
}

}  // namespace kernelgen::test
