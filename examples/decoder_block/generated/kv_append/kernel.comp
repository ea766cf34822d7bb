#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// k_rows = half(k), v_rows = half(v), elementwise: one element of each per invocation, rounded to nearest even
// in integers first (the device's own f32-to-f16 conversion may round otherwise; a value that is already an f16
// value converts exactly).
// kernelgen: dispatch (tokens * width + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint tokens; uint width; } dims;
layout(set = 0, binding = 0, std430) readonly buffer K { float k[]; };
layout(set = 0, binding = 1, std430) readonly buffer V { float v[]; };
layout(set = 0, binding = 2, std430) writeonly buffer KRows { float16_t k_rows[]; };
layout(set = 0, binding = 3, std430) writeonly buffer VRows { float16_t v_rows[]; };

// x rounded to the nearest f16 value, ties to even, kept as a float (ops/to_half/to_half.comp).
vec4 half_rounded(vec4 x) {
  uvec4 b = floatBitsToUint(x);
  vec4 r = uintBitsToFloat((b + 0x0FFFu + ((b >> 13) & 1u)) & 0xFFFFE000u);
  vec4 a = abs(x);
  r = mix(r, roundEven(x * 16777216.0) * (1.0 / 16777216.0), lessThan(a, vec4(6.103515625e-05)));
  r = mix(r, sign(x) * uintBitsToFloat(0x7f800000u), greaterThanEqual(a, vec4(65520.0)));
  return mix(r, x, isnan(x));
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.tokens * dims.width) return;
  vec4 r = half_rounded(vec4(k[i], v[i], 0.0, 0.0));
  k_rows[i] = float16_t(r.x);
  v_rows[i] = float16_t(r.y);
}
