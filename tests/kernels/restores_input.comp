#version 450
// Bad relu for kernelgen's own tests. Expected: WROTE_INPUT, from its SPIR-V, before it runs.
// The bug: x is used as scratch (zeroed while y is computed) and restored before the kernel ends, so every run
// leaves x as it found it and a check of the inputs after a run sees nothing. Another kernel reading x at the
// same time would not.
// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint n = dims.batch * 2048u;
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  float kept = x[i];
  x[i] = 0.0;
  y[i] = max(kept, 0.0);
  x[i] = kept;
}
