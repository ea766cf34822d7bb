#version 450
// One vec4 per invocation, coalesced. A channel's 8x8 plane is 64 floats, 16 vec4s, so the four floats of a
// vec4 share a channel: vec4 i is in channel (i / 16) % 16. An image is 16 * 16 = 256 vec4s, one workgroup.
// kernelgen: dispatch n 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n * 256u) y[i] = x[i] + bias[(i / 16u) % 16u];
}
