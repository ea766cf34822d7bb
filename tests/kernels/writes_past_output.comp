#version 450
// Bad relu for kernelgen's own tests. Expected: OUT_OF_BOUNDS on y.
// The bug: the grid is rounded up by one workgroup "for the remainder" and the bounds check is off by one
// (<= instead of <), so the invocation with i == N stores one element past the end of y.
// kernelgen: dispatch 129 1 1
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint N = 4 * 8 * 16 * 16;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i <= N) y[i] = max(x[i], 0.0);
}
