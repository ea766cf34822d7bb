#version 450
// A correct relu kept fixed for tests that edit it line by line (generated/relu/ may change on regeneration).
// relu over 4x8x16x16 = 8192 floats, four per invocation as vec4 loads and stores.
// kernelgen: dispatch 8 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };

const uint kVec4s = 8192 / 4;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < kVec4s) y[i] = max(x[i], vec4(0.0));
}
