#version 450
// Bad relu for kernelgen's own tests. Expected: INTERFACE_MISMATCH naming binding 2.
// The bug: the bindings are numbered from 1, so the output lands at binding 2, which the op does not have,
// and binding 0 (the input x) is never declared.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 1, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = max(x[i], 0.0);
}
