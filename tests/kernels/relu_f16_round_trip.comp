#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL.
// The bug: the result goes through f16 (packHalf2x16, unpackHalf2x16), about 5e-4 relative error on an f32
// op. A GPU compiler may fold the round trip away and give exact results there: validated on a CPU device
// too, the rounding shows.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.batch * 2048u) return;
  y[i] = unpackHalf2x16(packHalf2x16(vec2(max(x[i], 0.0), 0.0))).x;
}
