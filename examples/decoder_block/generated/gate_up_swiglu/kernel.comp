#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// y = silu(x wg^T) * (x wu^T) in f32, the two products and the gating in one pass: the portable kernel, hand-written
// from ops/linear/linear.comp with two weights. A 16x16 workgroup computes a 128x64 tile of y, invocation (tx, ty) an
// 8x4 block of it for both products: rows 4ty..4ty+3 and 64+4ty..64+4ty+3, columns 4tx..4tx+3. k advances 8 at a time
// through two shared buffers, the 128x8 slice of x and the 64x8 slices of wg and wu stored k-major; each invocation
// loads one vec4 of the next slice of x and one of wg (invocations 0..127) or wu (128..255) into registers before
// multiplying the current slice, then stores them into the other buffer. The gating runs on the two sums as the
// reference writes it. Loads past an edge give 0; stores are guarded, vec4s when n is a multiple of 4, else element by
// element.
// kernelgen: dispatch (n + 63) / 64 (m + 127) / 128 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { f16vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer WG { f16vec4 wg4[]; };
layout(set = 0, binding = 1, std430) readonly buffer WGElements { float16_t wg1[]; };
layout(set = 0, binding = 2, std430) readonly buffer WU { f16vec4 wu4[]; };
layout(set = 0, binding = 2, std430) readonly buffer WUElements { float16_t wu1[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { vec4 y4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer YElements { float y1[]; };
const uint BM = 128u, BN = 64u, BK = 8u;
shared vec4 Xs[2][BK][BM / 4u];     // Xs[buffer][kk][r / 4][r % 4] = x[row0 + r][k0 + kk]
shared vec4 Ws[2][2][BK][BN / 4u];  // Ws[buffer][0 gate, 1 up][kk][c / 4][c % 4] = w[col0 + c][k0 + kk]

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

// Four elements of wg (which 0) or wu (which 1) from row c, k = 4 kq..4 kq+3; zero past the edges.
vec4 load_w(uint which, uint c, uint kq) {
  if (c >= N) return vec4(0.0);
  if ((K & 3u) == 0u) {
    if (kq >= (K >> 2)) return vec4(0.0);
    uint e = c * (K >> 2) + kq;
    return which == 0u ? vec4(wg4[e]) : vec4(wu4[e]);
  }
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j;
    if (kk < K) v[j] = which == 0u ? float(wg1[c * K + kk]) : float(wu1[c * K + kk]);
  }
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  // This invocation's share of each slice: row t / 2, k-quad t % 2 of x; weight t / 128, row (t % 128) / 2,
  // k-quad t % 2.
  uint lr = t >> 1, lq = t & 1u, which = t >> 7, wr = (t & 127u) >> 1;

  vec4 g[8], u[8];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) { g[i] = vec4(0.0); u[i] = vec4(0.0); }

  vec4 rx = load_x(row0 + lr, lq), rw = load_w(which, col0 + wr, lq);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    Xs[0][lq * 4u + j][lr >> 2][lr & 3u] = rx[j];
    Ws[0][which][lq * 4u + j][wr >> 2][wr & 3u] = rw[j];
  }
  barrier();

  uint cur = 0u;
  for (uint k0 = 0u; k0 < K; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      rx = load_x(row0 + lr, (k0 + BK) / 4u + lq);
      rw = load_w(which, col0 + wr, (k0 + BK) / 4u + lq);
    }
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      vec4 a0 = Xs[cur][kk][ty], a1 = Xs[cur][kk][16u + ty];
      vec4 bg = Ws[cur][0][kk][tx], bu = Ws[cur][1][kk][tx];
      [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        g[r] += a0[r] * bg; u[r] += a0[r] * bu;
        g[4u + r] += a1[r] * bg; u[4u + r] += a1[r] * bu;
      }
    }
    // The other buffer was last read before the previous barrier: fill it for the next slice.
    if (more) {
      uint nxt = cur ^ 1u;
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        Xs[nxt][lq * 4u + j][lr >> 2][lr & 3u] = rx[j];
        Ws[nxt][which][lq * 4u + j][wr >> 2][wr & 3u] = rw[j];
      }
    }
    barrier();
    cur ^= 1u;
  }

  uint col = col0 + tx * 4u;
  if (col >= N) return;
  [[unroll]] for (uint i = 0u; i < 8u; ++i) {
    uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
    if (row >= M) continue;
    vec4 y = g[i] * (1.0 / (1.0 + exp(-g[i]))) * u[i];
    uint e0 = row * N + col;
    if ((N & 3u) == 0u) {
      y4[e0 >> 2] = y;
    } else {
      for (uint j = 0u; j < 4u && col + j < N; ++j) y1[e0 + j] = y[j];
    }
  }
}
