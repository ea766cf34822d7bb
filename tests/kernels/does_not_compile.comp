#version 450
// Bad relu for kernelgen's own tests. Expected: COMPILE_ERROR.
// The bug: gl_GlobalInvocationId is misspelled (GLSL's built-in is gl_GlobalInvocationID).
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationId.x;
  if (i < n) y[i] = max(x[i], 0.0);
}
