#version 450
// A correct negate of i8 tensors (y = -x, where -(-128) wraps to -128): 8-bit storage and int8_t arithmetic.
// kernelgen: dispatch (n + 63) / 64 1 1
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint n; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { int8_t x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { int8_t y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n) y[i] = -x[i];
}
