#version 450
// Bad relu for kernelgen's own tests. Expected: WROTE_INPUT.
// The bug: x is not declared readonly and the kernel clamps it in place before copying it to y. The output
// is right; the input is destroyed.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  x[i] = max(x[i], 0.0);
  y[i] = x[i];
}
