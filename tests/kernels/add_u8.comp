#version 450
// A correct add of u8 tensors (z = x + y modulo 256): 8-bit storage and uint8_t arithmetic, which wraps.
// kernelgen: dispatch (n + 63) / 64 1 1
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint n; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { uint8_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { uint8_t y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { uint8_t z[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n) z[i] = x[i] + y[i];
}
