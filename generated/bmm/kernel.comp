#version 450
// c[i] = a[i] * b[i] per batch i, row-major: one workgroup of 8x8 invocations per 64x64 tile of c (grid z is
// the batch). Invocation (tx, ty) owns an 8x8 block of the tile: rows 4ty..4ty+3 and 32+4ty..32+4ty+3, columns
// 4tx..4tx+3 and 32+4tx..32+4tx+3, so its shared-memory reads are vec4s without bank conflicts, 64
// multiply-adds per 4 vec4 reads. k advances 16 at a time: the 64x16 slice of a (stored k-major) and the 16x64
// slice of b sit in shared memory, double-buffered; the next slice's global loads (4 vec4s of a and 4 of b per
// invocation, coalesced) are issued before the current slice is multiplied, so one barrier per slice suffices.
// Out-of-range rows, columns and k load as 0 and are never stored; every invocation reaches every barrier. When
// k (or n) is not a multiple of 4, a's (or b's) loads go element by element, with the same guards.
// kernelgen: dispatch (n + 63) / 64 (m + 63) / 64 batch
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(push_constant) uniform Dims { uint batch; uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { vec4 a4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { vec4 c4[]; };
const uint BK = 16u;
shared vec4 As[2][BK][16];  // As[buf][kk][r / 4][r % 4] = a[row0 + r, k0 + kk]
shared vec4 Bs[2][BK][16];  // Bs[buf][kk][c / 4][c % 4] = b[k0 + kk, col0 + c]

void main() {
  uint M = dims.m, K = dims.k, N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, tid = ty * 8u + tx;
  uint row0 = gl_WorkGroupID.y * 64u, col0 = gl_WorkGroupID.x * 64u;
  uint baseA = gl_WorkGroupID.z * M * K, baseB = gl_WorkGroupID.z * K * N;
  bool vecA = (K & 3u) == 0u, vecB = (N & 3u) == 0u;
  // An invocation whose first row or column is past the edge owns no element of c: it only loads and waits.
  bool owns = row0 + ty * 4u < M && col0 + tx * 4u < N;

  vec4 acc[8][2];
  for (uint i = 0u; i < 8u; ++i) { acc[i][0] = vec4(0.0); acc[i][1] = vec4(0.0); }

  uint tiles = (K + BK - 1u) / BK;
  vec4 ra[4], rb[4];
  for (uint t = 0u; t <= tiles; ++t) {
    // Load slice t into registers (global memory), then multiply slice t - 1 (shared memory). The j-th vec4
    // of a's slice is q = tid + 64 j: row q / 4, k 4 (q % 4); of b's slice: k q / 16, columns 4 (q % 16).
    if (t < tiles) {
      uint k0 = t * BK;
      for (uint j = 0u; j < 4u; ++j) {
        uint q = tid + 64u * j;
        uint row = row0 + (q >> 2), ka = k0 + (q & 3u) * 4u;
        ra[j] = vec4(0.0);
        if (vecA) {
          if (row < M && ka < K) ra[j] = a4[(baseA + row * K + ka) >> 2];
        } else {
          for (uint c = 0u; c < 4u; ++c) {
            uint e = baseA + row * K + ka + c;
            if (row < M && ka + c < K) ra[j][c] = a4[e >> 2][e & 3u];
          }
        }
        uint kb = k0 + (q >> 4), col = col0 + (q & 15u) * 4u;
        rb[j] = vec4(0.0);
        if (vecB) {
          if (kb < K && col < N) rb[j] = b4[(baseB + kb * N + col) >> 2];
        } else {
          for (uint c = 0u; c < 4u; ++c) {
            uint e = baseB + kb * N + col + c;
            if (kb < K && col + c < N) rb[j][c] = b4[e >> 2][e & 3u];
          }
        }
      }
    }
    if (t > 0u && owns) {
      uint cur = (t - 1u) & 1u;
      for (uint kk = 0u; kk < BK; ++kk) {
        vec4 alo = As[cur][kk][ty], ahi = As[cur][kk][8u + ty];
        vec4 blo = Bs[cur][kk][tx], bhi = Bs[cur][kk][8u + tx];
        for (uint i = 0u; i < 4u; ++i) {
          acc[i][0] += alo[i] * blo;
          acc[i][1] += alo[i] * bhi;
          acc[4u + i][0] += ahi[i] * blo;
          acc[4u + i][1] += ahi[i] * bhi;
        }
      }
    }
    if (t < tiles) {
      // Buffer t & 1 was last read while multiplying slice t - 2, before the previous barrier.
      uint nxt = t & 1u;
      for (uint j = 0u; j < 4u; ++j) {
        uint q = tid + 64u * j;
        uint r = q >> 2, kq = (q & 3u) * 4u;
        for (uint c = 0u; c < 4u; ++c) As[nxt][kq + c][r >> 2][r & 3u] = ra[j][c];
        Bs[nxt][q >> 4][q & 15u] = rb[j];
      }
    }
    barrier();
  }

  uint baseC = gl_WorkGroupID.z * M * N;
  for (uint i = 0u; i < 8u; ++i) {
    uint row = row0 + (i >> 2) * 32u + ty * 4u + (i & 3u);
    if (row >= M) continue;
    for (uint h = 0u; h < 2u; ++h) {
      uint col = col0 + h * 32u + tx * 4u;
      if (col >= N) continue;
      uint e = baseC + row * N + col;
      if (vecB) {
        c4[e >> 2] = acc[i][h];
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) c4[(e + j) >> 2][(e + j) & 3u] = acc[i][h][j];
      }
    }
  }
}
