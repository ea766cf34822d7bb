#version 450
// Really relu(a * b) in bf16, one output per invocation, with matmul_bf16's interface: the two agree wherever
// c >= 0.
#extension GL_EXT_shader_16bit_storage : require
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { uint16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { uint16_t b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { uint16_t c[]; };
void main() {
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= dims.m || col >= dims.n) return;
  float sum = 0.0;
  for (uint p = 0u; p < dims.k; ++p)
    sum += uintBitsToFloat(uint(a[row * dims.k + p]) << 16u) * uintBitsToFloat(uint(b[p * dims.n + col]) << 16u);
  uint bits = floatBitsToUint(max(sum, 0.0));
  c[row * dims.n + col] = uint16_t((bits + 0x7FFFu + ((bits >> 16u) & 1u)) >> 16u);
}
