#version 450
// Really gelu(a * b) + bias (the bias added after the activation, not before) with matmul_bias_gelu's interface.
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3, std430) writeonly buffer C { float c[]; };
void main() {
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= dims.m || col >= dims.n) return;
  float x = 0.0;
  for (uint i = 0u; i < dims.k; ++i) x += a[row * dims.k + i] * b[i * dims.n + col];
  float u = 0.7978845608 * (x + 0.044715 * x * x * x);
  c[row * dims.n + col] = x / (1.0 + exp(-2.0 * u)) + bias[col];
}
