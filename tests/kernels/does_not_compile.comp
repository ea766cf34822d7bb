#version 450
// Bad relu for kernelgen's own tests. Expected: COMPILE_ERROR.
// The bug: gl_GlobalInvocationId is misspelled (GLSL's built-in is gl_GlobalInvocationID).
// kernelgen: dispatch 32 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint N = 4 * 8 * 16 * 16;

void main() {
  uint i = gl_GlobalInvocationId.x;
  if (i < N) y[i] = max(x[i], 0.0);
}
