#version 450
// Bad relu for kernelgen's own tests. Expected: WROTE_INPUT.
// The bug: x is not declared readonly and the kernel clamps it in place before copying it to y. The output
// is right; the input is destroyed.
// kernelgen: dispatch 32 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint N = 4 * 8 * 16 * 16;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= N) return;
  x[i] = max(x[i], 0.0);
  y[i] = x[i];
}
