#version 450
// Bad relu for kernelgen's own tests. Expected: WROTE_INPUT, from its SPIR-V, before it runs.
// The bug: x is declared twice, and its second view (vec4) is not readonly, though nothing writes through it.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 0, std430) buffer X4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.batch * 2048u) return;
  float value = (i % 4u) == 0u ? x4[i / 4u].x : x[i];
  y[i] = max(value, 0.0);
}
