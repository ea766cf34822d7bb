#version 450
// Bad relu for kernelgen's own tests. Expected: INTERFACE_MISMATCH, no dispatch line.
// The bug: the grid is described in prose (batch * 8 workgroups of 256) instead of on the contract's
// `kernelgen: dispatch` line, so nothing says how many workgroups to launch.
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = max(x[i], 0.0);
}
