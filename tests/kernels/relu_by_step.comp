#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL.
// The bug: relu as x * step(0, x), right for every finite x, but -Inf * 0 is NaN where relu(-Inf) is 0.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.batch * 2048u) return;
  y[i] = x[i] * step(0.0, x[i]);
}
