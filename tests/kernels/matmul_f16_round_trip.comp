#version 450
// Bad matmul for kernelgen's own tests. Expected: INCORRECT_NUMERICAL.
// The bug: every product is rounded through f16 (packHalf2x16, unpackHalf2x16) before it is added. A GPU
// compiler may fold the round trip away; validated on a CPU device too, the rounding shows.
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };
void main() {
  uint row = gl_GlobalInvocationID.y, col = gl_GlobalInvocationID.x;
  if (row >= dims.m || col >= dims.n) return;
  float sum = 0.0;
  for (uint i = 0u; i < dims.k; ++i)
    sum += unpackHalf2x16(packHalf2x16(vec2(a[row * dims.k + i] * b[i * dims.n + col], 0.0))).x;
  c[row * dims.n + col] = sum;
}
