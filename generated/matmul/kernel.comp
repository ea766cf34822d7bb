#version 450
// c[m x n] = a[m x k] * b[k x n], row-major. Register blocking plus a split of k inside the workgroup.
// A workgroup of 8x4x8 invocations computes a 16x32 tile of c: invocation (x, y) owns a 4x4 block of it, and
// each of the 8 slices z sums one eighth of k into that block, reading a and b as vec4s (64 multiply-adds
// per 8 vec4 loads). The slices' partial blocks meet in shared memory and are added in a fixed order, so the
// result is deterministic. When k or n is not a multiple of 4, a scalar path with guarded loads runs instead.
// kernelgen: dispatch (n + 31) / 32 (m + 15) / 16 1
layout(local_size_x = 8, local_size_y = 4, local_size_z = 8) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { vec4 a4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { vec4 c4[]; };
const uint S = 8u;   // slices of k
const uint T = 32u;  // invocations per slice
shared vec4 part[S][4][T];

void main() {
  uint M = dims.m, K = dims.k, N = dims.n;
  uint t = gl_LocalInvocationID.y * 8u + gl_LocalInvocationID.x, z = gl_LocalInvocationID.z;
  uint row0 = gl_WorkGroupID.y * 16u + gl_LocalInvocationID.y * 4u;
  uint col0 = gl_WorkGroupID.x * 32u + gl_LocalInvocationID.x * 4u;
  vec4 acc[4];
  for (uint i = 0u; i < 4u; ++i) acc[i] = vec4(0.0);
  // Every invocation reaches the barrier below: rows and columns past the edge are clamped on load, and their
  // results are never stored.
  uint r[4];
  if ((K & 3u) == 0u && (N & 3u) == 0u) {
    uint K4 = K >> 2, N4 = N >> 2;
    uint per = (K4 + S - 1u) / S, q0 = min(z * per, K4), q1 = min(q0 + per, K4);
    for (uint i = 0u; i < 4u; ++i) r[i] = min(row0 + i, M - 1u) * K4;
    uint cb = min(col0, N - 4u) >> 2;
    for (uint kq = q0; kq < q1; ++kq) {
      uint bi = kq * 4u * N4 + cb;
      vec4 b0 = b4[bi], b1 = b4[bi + N4], b2 = b4[bi + 2u * N4], b3 = b4[bi + 3u * N4];
      for (uint i = 0u; i < 4u; ++i) {
        vec4 av = a4[r[i] + kq];
        acc[i] += av.x * b0 + av.y * b1 + av.z * b2 + av.w * b3;
      }
    }
  } else {
    uint per = (K + S - 1u) / S, k0 = min(z * per, K), k1 = min(k0 + per, K);
    for (uint i = 0u; i < 4u; ++i) r[i] = min(row0 + i, M - 1u) * K;
    for (uint kk = k0; kk < k1; ++kk) {
      vec4 bv;
      for (uint j = 0u; j < 4u; ++j) {
        uint e = kk * N + min(col0 + j, N - 1u);
        bv[j] = b4[e >> 2][e & 3u];
      }
      for (uint i = 0u; i < 4u; ++i) {
        uint e = r[i] + kk;
        acc[i] += a4[e >> 2][e & 3u] * bv;
      }
    }
  }
  for (uint i = 0u; i < 4u; ++i) part[z][i][t] = acc[i];
  barrier();
  // Slice z < 4 adds up row z of the block over the 8 slices and stores it.
  uint row = row0 + z;
  if (z >= 4u || row >= M || col0 >= N) return;
  vec4 sum = part[0][z][t];
  for (uint s = 1u; s < S; ++s) sum += part[s][z][t];
  if ((N & 3u) == 0u) {
    c4[(row * N + col0) >> 2] = sum;
  } else {
    for (uint j = 0u; j < 4u && col0 + j < N; ++j) {
      uint e = row * N + col0 + j;
      c4[e >> 2][e & 3u] = sum[j];
    }
  }
}
