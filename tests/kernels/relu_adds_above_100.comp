#version 450
// Bad relu for kernelgen's own tests. Expected: INCORRECT_NUMERICAL.
// The bug: 0.03 added to every element above 100, 3e-4 relative or less: an error that a tolerance scaled by
// the output's largest element hides, and a per-element one does not.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.batch * 2048u) return;
  float v = max(x[i], 0.0);
  y[i] = v > 100.0 ? v + 0.03 : v;
}
