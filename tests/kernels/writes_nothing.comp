#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL, every element of y never written.
// The bug: the bounds check is inverted, so every invocation inside the tensor returns before its store.
// kernelgen: dispatch 32 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint N = 4 * 8 * 16 * 16;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < N) return;
  y[i] = max(x[i], 0.0);
}
