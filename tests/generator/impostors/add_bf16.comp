#version 450
// Really x - y, with add_bf16's interface (rows of 1024 bf16 values, 8 to a uvec4).
// kernelgen: dispatch (rows + 1) / 2 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { uvec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { uvec4 z[]; };

uint bf16_bits(float f) {
  uint b = floatBitsToUint(f);
  return isnan(f) ? 0x7FC0u : (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
}

uint subtract_pair(uint a, uint b) {
  float lo = uintBitsToFloat(a << 16) - uintBitsToFloat(b << 16);
  float hi = uintBitsToFloat(a & 0xFFFF0000u) - uintBitsToFloat(b & 0xFFFF0000u);
  return bf16_bits(lo) | (bf16_bits(hi) << 16);
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.rows * 128u) return;
  uvec4 a = x[i], b = y[i];
  z[i] = uvec4(subtract_pair(a.x, b.x), subtract_pair(a.y, b.y), subtract_pair(a.z, b.z), subtract_pair(a.w, b.w));
}
