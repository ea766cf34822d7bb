#version 450
// y = max(x, 0) on f16 tensors of n elements, read and written as float16_t.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// kernelgen: dispatch (n + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float16_t y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n) y[i] = max(x[i], float16_t(0.0));
}
