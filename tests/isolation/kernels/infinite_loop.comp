#version 450
// A relu that never finishes: the loop's condition depends on the input and its body stores, so no compiler
// may remove it, and it holds for every input but one bit pattern no case draws (a NaN test, x == x, would let
// a case whose x[0] is NaN through). What a model's off-by-one loop bound can look like.
// kernelgen: dispatch 8 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) buffer Y { vec4 y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  while (floatBitsToUint(x[0].x) != 0x12345679u) y[i] += vec4(1.0);
}
