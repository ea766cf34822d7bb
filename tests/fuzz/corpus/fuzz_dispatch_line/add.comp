#version 450
// z = x + y over 64x1024 = 65536 floats, four per invocation as vec4 loads and stores.
// kernelgen: dispatch 64 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { vec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { vec4 z[]; };

const uint kVec4s = 65536 / 4;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < kVec4s) z[i] = x[i] + y[i];
}
