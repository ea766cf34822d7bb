#version 450
// y = 2 * x over 256 floats, one per invocation.
// kernelgen: dispatch 4 1 1
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < 256) y[i] = 2.0 * x[i];
}
