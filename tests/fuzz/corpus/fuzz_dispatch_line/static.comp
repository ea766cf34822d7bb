
#version 450
// y = alpha * x + b over 1024 floats with alpha = 2 (the op's PARAMS), four per invocation as vec4s.
// kernelgen: dispatch 4 1 1
layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y[]; };

const float kAlpha = 2.0;
const uint kVec4s = 1024 / 4;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < kVec4s) y[i] = kAlpha * x[i] + b[i];
}
