#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL, half of y never written.
// The bug: the kernel indexes two rows of 4096 elements with gl_GlobalInvocationID.y, but the grid declares
// one row, so the second half of the output is never reached.
// kernelgen: dispatch 16 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint kRow = 4096;

void main() {
  uint i = gl_GlobalInvocationID.y * kRow + gl_GlobalInvocationID.x;
  y[i] = max(x[i], 0.0);
}
