#version 450
// Really a per-channel bias for NHWC tensors (channel = i % 16) with bias_add's interface: bias_add is NCHW.
// kernelgen: dispatch n * 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n * 1024u) y[i] = x[i] + bias[i % 16u];
}
