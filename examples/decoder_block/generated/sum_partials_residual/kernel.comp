#version 450
// y = (p[0] + p[1] + ... + p[splits - 1]) + r in f32, in that order: the ranges of linear_partials' split-K
// product added up, then the residual; hand-written. Each invocation takes four consecutive elements of y (m n is a
// multiple of 4 wherever n is, and then every partial starts on 16 bytes), as vec4s; else one element.
// kernelgen: dispatch (m * n + 1023) / 1024 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint splits; uint m; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer P { vec4 p4[]; };
layout(set = 0, binding = 0, std430) readonly buffer PElements { float p1[]; };
layout(set = 0, binding = 1, std430) readonly buffer R { vec4 r4[]; };
layout(set = 0, binding = 1, std430) readonly buffer RElements { float r1[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer YElements { float y1[]; };

void main() {
  const uint count = dims.m * dims.n, first = gl_GlobalInvocationID.x * 4u;
  if (first >= count) return;
  if ((dims.n & 3u) == 0u) {
    const uint q = first / 4u, stride = count / 4u;
    vec4 sum = p4[q];
    for (uint s = 1u; s < dims.splits; ++s) sum += p4[s * stride + q];
    y4[q] = sum + r4[q];
    return;
  }
  for (uint e = first; e < min(first + 4u, count); ++e) {
    float sum = p1[e];
    for (uint s = 1u; s < dims.splits; ++s) sum += p1[s * count + e];
    y1[e] = sum + r1[e];
  }
}
