#version 450
// Bad relu for kernelgen's own tests. Expected: NONDETERMINISTIC.
// The bug: the kernel accumulates into y as if it started at zero. y holds whatever was there before the
// dispatch, so two runs on the same input give different outputs.
// kernelgen: dispatch 32 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) buffer Y { float y[]; };

const uint N = 4 * 8 * 16 * 16;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N) y[i] += max(x[i], 0.0);
}
