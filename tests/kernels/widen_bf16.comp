#version 450
// A correct bf16 -> f32 widening (y:f32[n] = x:bf16[n]): a bf16 is the upper 16 bits of a float, so its bits
// shifted up 16 are the float, exactly; 16-bit storage only, no 16-bit arithmetic.
// kernelgen: dispatch (n + 63) / 64 1 1
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint n; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { uint16_t x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n) y[i] = uintBitsToFloat(uint(x[i]) << 16);
}
