#version 450
// Really relu(a * b) in f16, one output per invocation, with matmul_f16's interface: the two agree wherever
// c >= 0.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float16_t c[]; };
void main() {
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= dims.m || col >= dims.n) return;
  float sum = 0.0;
  for (uint p = 0u; p < dims.k; ++p) sum += float(a[row * dims.k + p]) * float(b[p * dims.n + col]);
  c[row * dims.n + col] = float16_t(max(sum, 0.0));
}
