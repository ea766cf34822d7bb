#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL, half of y never written.
// The bug: the kernel indexes two halves of batch * 1024 elements with gl_GlobalInvocationID.y, but the grid
// declares one row, so the second half of the output is never reached.
// kernelgen: dispatch batch * 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint half_size = dims.batch * 1024u;
  uint i = gl_GlobalInvocationID.y * half_size + gl_GlobalInvocationID.x;
  y[i] = max(x[i], 0.0);
}
