#version 450
// 2x2 max pooling, stride 2, NCHW: 56x56 -> 28x28 per (image, channel) plane. One vec4 of y (4 consecutive
// outputs of a row) per invocation: it reads the two input rows under them as 2 + 2 vec4s (8 columns each),
// coalesced, and writes one vec4. A plane's output is 28 x 7 vec4s, so vec4 i of y is in output row i / 7 of
// the n * 64 * 28 rows and its inputs start at vec4 (i / 7) * 28 + 2 * (i % 7) of x (an output row is two
// input rows of 14 vec4s). An image is 64 * 196 = 12544 vec4s of y, 49 workgroups of 256.
// NaN propagates: max2 returns a when a > b or a is NaN, else b (so b's NaN passes too).
// kernelgen: dispatch n * 49 1 1
layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y4[]; };

float max2(float a, float b) { return (a > b || isnan(a)) ? a : b; }

void main() {
  uint i = gl_WorkGroupID.x * 256u + gl_LocalInvocationIndex;
  if (i >= dims.n * 12544u) return;
  uint row = i / 7u;
  uint base = row * 28u + 2u * (i - row * 7u);
  vec4 a0 = x4[base], a1 = x4[base + 1u], b0 = x4[base + 14u], b1 = x4[base + 15u];
  y4[i] = vec4(max2(max2(a0.x, a0.y), max2(b0.x, b0.y)), max2(max2(a0.z, a0.w), max2(b0.z, b0.w)),
               max2(max2(a1.x, a1.y), max2(b1.x, b1.y)), max2(max2(a1.z, a1.w), max2(b1.z, b1.w)));
}
