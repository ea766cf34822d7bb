#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL, every element of y never written.
// The bug: the bounds check is inverted, so every invocation inside the tensor returns before its store.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i < n) return;
  y[i] = max(x[i], 0.0);
}
