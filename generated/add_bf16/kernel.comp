#version 450
// z = x + y over bf16, 8 elements to a uvec4 (16 bytes). A 256-wide workgroup covers eight rows (1024 uvec4s of
// each tensor): invocation l adds uvec4s l, l + 256, l + 512 and l + 768 of them, so each of its four steps is
// one contiguous 4 KiB access by the workgroup, with four independent loads of each input in flight. A bf16 is
// the upper half of a float: the low element of a 32-bit word widens as the word shifted up 16 bits, the high one
// as the word with its low 16 bits cleared (both exact); the float sums are rounded to nearest even in integers
// and packed back two to a word. Past rows * 128 uvec4s nothing is read or written.
// kernelgen: dispatch (rows + 7) / 8 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { uvec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { uvec4 z[]; };

// The upper 16 bits of f rounded to nearest even (an overflow carries into the infinity); a NaN stays NaN.
uint bf16_bits(float f) {
  uint b = floatBitsToUint(f);
  return isnan(f) ? 0x7FC0u : (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
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
