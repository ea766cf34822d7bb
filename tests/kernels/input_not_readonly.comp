#version 450
// Bad relu for kernelgen's own tests. Expected: WROTE_INPUT, from its SPIR-V, before it runs.
// The bug: x is right and never written, but not declared readonly: the contract's inputs are read-only, and
// a binding the compiler may write is one the wrapper cannot share with another dispatch reading it.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  y[i] = max(x[i], 0.0);
}
