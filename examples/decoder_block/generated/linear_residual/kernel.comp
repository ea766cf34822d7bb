#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// y[m x n] = x[m x k] * w[n x k]^T + r[m x n] in f32, the residual added last: the portable kernel, hand-written from
// the catalog's matmul_f16 (generated/matmul_f16/kernel.comp) with the weight read in torch.nn.Linear's [out, in]
// layout. A 16x16 workgroup computes a 128x128 tile of y, invocation (tx, ty) an 8x8 block of it: rows 4ty..4ty+3 and
// 64+4ty..64+4ty+3, columns 4tx..4tx+3 and 64+4tx..64+4tx+3. k advances 8 at a time through two shared buffers, the
// 128x8 slices of x and of w both stored k-major (Xs[kk][row], Ws[kk][col]); each invocation loads one vec4 of each
// next slice into registers before multiplying the current slice, then stores them into the other buffer: one barrier
// per slice. Loads past an edge give 0; stores are guarded (the residual read beside each), vec4s when n is a multiple
// of 4, else element by element.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { f16vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { f16vec4 w4[]; };
layout(set = 0, binding = 1, std430) readonly buffer WElements { float16_t w1[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { vec4 r4[]; };
layout(set = 0, binding = 2, std430) readonly buffer RElements { float r1[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { vec4 y4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer YElements { float y1[]; };
const uint BM = 128u, BN = 128u, BK = 8u;
shared vec4 Xs[2][BK][BM / 4u];  // Xs[buffer][kk][r / 4][r % 4] = x[row0 + r][k0 + kk]
shared vec4 Ws[2][BK][BN / 4u];  // Ws[buffer][kk][c / 4][c % 4] = w[col0 + c][k0 + kk]

uint M, K, N, row0, col0;

// Four elements of x from row r, k = 4 kq..4 kq+3; zero past the edges.
vec4 load_x(uint r, uint kq) {
  if (r >= M) return vec4(0.0);
  if ((K & 3u) == 0u) return kq < (K >> 2) ? vec4(x4[r * (K >> 2) + kq]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j;
    if (kk < K) v[j] = float(x1[r * K + kk]);
  }
  return v;
}

// Four elements of w from row c (output column c), k = 4 kq..4 kq+3; zero past the edges.
vec4 load_w(uint c, uint kq) {
  if (c >= N) return vec4(0.0);
  if ((K & 3u) == 0u) return kq < (K >> 2) ? vec4(w4[c * (K >> 2) + kq]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j;
    if (kk < K) v[j] = float(w1[c * K + kk]);
  }
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  // This invocation's share of each slice: row t / 2, k-quad t % 2, of x and of w alike.
  uint lr = t >> 1, lq = t & 1u;

  vec4 acc[8][2];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) { acc[i][0] = vec4(0.0); acc[i][1] = vec4(0.0); }

  vec4 rx = load_x(row0 + lr, lq), rw = load_w(col0 + lr, lq);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    Xs[0][lq * 4u + j][lr >> 2][lr & 3u] = rx[j];
    Ws[0][lq * 4u + j][lr >> 2][lr & 3u] = rw[j];
  }
  barrier();

  uint cur = 0u;
  for (uint k0 = 0u; k0 < K; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      rx = load_x(row0 + lr, (k0 + BK) / 4u + lq);
      rw = load_w(col0 + lr, (k0 + BK) / 4u + lq);
    }
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      vec4 a0 = Xs[cur][kk][ty], a1 = Xs[cur][kk][16u + ty];
      vec4 b0 = Ws[cur][kk][tx], b1 = Ws[cur][kk][16u + tx];
      [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        acc[r][0] += a0[r] * b0; acc[r][1] += a0[r] * b1;
        acc[4u + r][0] += a1[r] * b0; acc[4u + r][1] += a1[r] * b1;
      }
    }
    // The other buffer was last read before the previous barrier: fill it for the next slice.
    if (more) {
      uint nxt = cur ^ 1u;
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        Xs[nxt][lq * 4u + j][lr >> 2][lr & 3u] = rx[j];
        Ws[nxt][lq * 4u + j][lr >> 2][lr & 3u] = rw[j];
      }
    }
    barrier();
    cur ^= 1u;
  }

  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    uint col = col0 + h * 64u + tx * 4u;
    if (col >= N) continue;
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
      uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
      if (row >= M) continue;
      uint e0 = row * N + col;
      if ((N & 3u) == 0u) {
        y4[e0 >> 2] = acc[i][h] + r4[e0 >> 2];
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) y1[e0 + j] = acc[i][h][j] + r1[e0 + j];
      }
    }
  }
}
