#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// y = half(x), elementwise: four elements per invocation, rounded to nearest even in integers first (the
// device's own f32-to-f16 conversion may round otherwise; a value that is already an f16 value converts exactly).
// Whole groups of four load and store as vectors; the last, partial group goes element by element.
// kernelgen: dispatch (rows * cols + 1023) / 1024 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float x1[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { f16vec4 y4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer YElements { float16_t y1[]; };

// x rounded to the nearest f16 value, ties to even, kept as a float. Normal values keep 11 significant bits;
// below 2^-14 they become multiples of 2^-24 (f16's subnormals); from 65520 up they overflow to infinity; NaN
// stays NaN.
vec4 half_rounded(vec4 x) {
  uvec4 b = floatBitsToUint(x);
  vec4 r = uintBitsToFloat((b + 0x0FFFu + ((b >> 13) & 1u)) & 0xFFFFE000u);
  vec4 a = abs(x);
  r = mix(r, roundEven(x * 16777216.0) * (1.0 / 16777216.0), lessThan(a, vec4(6.103515625e-05)));
  r = mix(r, sign(x) * uintBitsToFloat(0x7f800000u), greaterThanEqual(a, vec4(65520.0)));
  return mix(r, x, isnan(x));
}

void main() {
  uint total = dims.rows * dims.cols, i = gl_GlobalInvocationID.x * 4u;
  if (i + 4u <= total) {
    y4[i / 4u] = f16vec4(half_rounded(x4[i / 4u]));
    return;
  }
  for (uint e = i; e < total; ++e) y1[e] = float16_t(half_rounded(vec4(x1[e])).x);
}
