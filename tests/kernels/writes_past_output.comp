#version 450
// Bad relu for kernelgen's own tests. Expected: OUT_OF_BOUNDS on y.
// The bug: the grid is rounded up by one workgroup "for the remainder" and the bounds check is off by one
// (<= instead of <) where it stores, though not where it loads, so the invocation with i == batch * 512 stores
// one vec4 past the end of y and reads nothing outside x.
// kernelgen: dispatch batch * 2 + 1 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i <= dims.batch * 512u) y[i] = i < dims.batch * 512u ? max(x[i], vec4(0.0)) : vec4(0.0);
}
