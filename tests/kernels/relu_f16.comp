#version 450
// A correct relu over f16 tensors (y:f16[n] = max(x:f16[n], 0)): 16-bit storage and float16 arithmetic.
// kernelgen: dispatch (n + 63) / 64 1 1
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint n; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float16_t y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n) y[i] = max(x[i], float16_t(0.0));
}
