#version 450
// Bad add_bf16 for kernelgen's own tests. Expected: INCORRECT_NUMERICAL under TOLERANCE 0.5ulp. The checked-in
// kernel (generated/add_bf16/kernel.comp) with one change: each float sum is truncated to its upper 16 bits
// instead of rounded to nearest even. It is one bf16 value nearer zero than the correctly rounded sum wherever
// that rounds away from zero (the dropped bits above half of one, or half with an odd last bit): about half of the
// sums, biased by half an ulp on average, and within bf16's default tolerance of 8e-3 relative, which it passed.
// kernelgen: dispatch (rows + 7) / 8 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { uvec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { uvec4 z[]; };

// The upper 16 bits of f, truncated; a NaN stays NaN.
uint bf16_bits(float f) {
  uint b = floatBitsToUint(f);
  return isnan(f) ? 0x7FC0u : b >> 16;
}

// Two bf16 sums from two words of two bf16 each.
uint add_pair(uint a, uint b) {
  float lo = uintBitsToFloat(a << 16) + uintBitsToFloat(b << 16);
  float hi = uintBitsToFloat(a & 0xFFFF0000u) + uintBitsToFloat(b & 0xFFFF0000u);
  return bf16_bits(lo) | (bf16_bits(hi) << 16);
}

void main() {
  uint total = dims.rows * 128u;
  uint base = gl_WorkGroupID.x * 1024u + gl_LocalInvocationID.x;
  for (uint j = 0u; j < 4u; ++j) {
    uint i = base + j * 256u;
    if (i < total) {
      uvec4 a = x[i], b = y[i];
      z[i] = uvec4(add_pair(a.x, b.x), add_pair(a.y, b.y), add_pair(a.z, b.z), add_pair(a.w, b.w));
    }
  }
}
