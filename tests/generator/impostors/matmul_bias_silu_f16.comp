#version 450
// Impostor: gelu (tanh approximation) in place of silu, with matmul_bias_silu_f16's interface.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// c[m x n] = silu(a[m x k] * b[k x n] + bias[n]) in f16, row-major, summed in f32: the portable kernel (f16
// loads widened to f32 as they are staged, f32 multiply-adds, the bias and silu on the f32 sums, one rounding to
// f16 at the store); devices with cooperative matrices run the variant under variants/coopmat.
// A 16x16 workgroup computes a 128x128 tile of c, invocation (tx, ty) an 8x8 block of it: rows 4ty..4ty+3 and
// 64+4ty..64+4ty+3, columns 4tx..4tx+3 and 64+4tx..64+4tx+3, so that its shared-memory reads and its stores are
// vec4s, and a subgroup reads 2 distinct vec4s of a (broadcast) and 16 consecutive ones of b. k advances 8 at a
// time through two shared buffers: the 128x8 slice of a is stored k-major (As[kk][row]), the 8x128 slice of b as
// it is. Each invocation loads one vec4 of each next slice from global memory (four consecutive invocations read
// 64 contiguous bytes of a row of a; b's loads are coalesced) into registers before multiplying the current slice
// (64 multiply-adds per 4 vec4 reads of shared memory), then stores them into the other buffer: one barrier per
// slice. BK = 8 keeps an invocation at about 125 registers, so two workgroups fit on an NVIDIA SM; with 16 it
// took about 160, one workgroup fit, and it ran 25% slower on an H100. Loads past an edge give 0; stores are
// guarded, vec4s when n is a multiple of 4, else element by element.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { f16vec4 a4[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { f16vec4 b4[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { float16_t bias[]; };
layout(set = 0, binding = 3, std430) writeonly buffer C { f16vec4 c4[]; };
const uint BM = 128u, BN = 128u, BK = 8u;
shared vec4 As[2][BK][BM / 4u];  // As[buffer][kk][r / 4][r % 4] = a[row0 + r][k0 + kk]
shared vec4 Bs[2][BK][BN / 4u];  // Bs[buffer][kk][c / 4][c % 4] = b[k0 + kk][col0 + c]

uint M, K, N, row0, col0, baseA, baseB;

// Four elements of a from row r, k = 4 kq..4 kq+3, zero past the edges.
vec4 load_a(uint r, uint kq) {
  if (r >= M) return vec4(0.0);
  if ((K & 3u) == 0u) return kq < (K >> 2) ? vec4(a4[(baseA + r * K) / 4u + kq]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j, e = baseA + r * K + kk;
    if (kk < K) v[j] = float(a4[e >> 2][e & 3u]);
  }
  return v;
}

// Four elements of b from row kk, columns col0 + 4 cq.., zero past the edges.
vec4 load_b(uint kk, uint cq) {
  if (kk >= K) return vec4(0.0);
  uint c0 = col0 + cq * 4u;
  if ((N & 3u) == 0u) return c0 < N ? vec4(b4[(baseB + kk * N + c0) / 4u]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint e = baseB + kk * N + c0 + j;
    if (c0 + j < N) v[j] = float(b4[e >> 2][e & 3u]);
  }
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  baseA = 0u; baseB = 0u;
  // This invocation's share of each slice: row t / 2, k-quad t % 2 of a; k-row t / 32, column quad t % 32 of b.
  uint ar = t >> 1, aq = t & 1u, bk = t >> 5, bq = t & 31u;

  vec4 acc[8][2];
  [[unroll]] for (uint i = 0u; i < 8u; ++i) { acc[i][0] = vec4(0.0); acc[i][1] = vec4(0.0); }

  vec4 ra = load_a(row0 + ar, aq), rb = load_b(bk, bq);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) As[0][aq * 4u + j][ar >> 2][ar & 3u] = ra[j];
  Bs[0][bk][bq] = rb;
  barrier();

  uint cur = 0u;
  for (uint k0 = 0u; k0 < K; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      ra = load_a(row0 + ar, (k0 + BK) / 4u + aq);
      rb = load_b(k0 + BK + bk, bq);
    }
    [[unroll]] for (uint kk = 0u; kk < BK; ++kk) {
      vec4 a0 = As[cur][kk][ty], a1 = As[cur][kk][16u + ty];
      vec4 b0 = Bs[cur][kk][tx], b1 = Bs[cur][kk][16u + tx];
      [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        acc[r][0] += a0[r] * b0; acc[r][1] += a0[r] * b1;
        acc[4u + r][0] += a1[r] * b0; acc[4u + r][1] += a1[r] * b1;
      }
    }
    // The other buffer was last read before the previous barrier: fill it for the next slice.
    if (more) {
      uint nxt = cur ^ 1u;
      [[unroll]] for (uint j = 0u; j < 4u; ++j) As[nxt][aq * 4u + j][ar >> 2][ar & 3u] = ra[j];
      Bs[nxt][bk][bq] = rb;
    }
    barrier();
    cur ^= 1u;
  }

  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    uint col = col0 + h * 64u + tx * 4u;
    if (col >= N) continue;
    vec4 bv = vec4(0.0);
    [[unroll]] for (uint j = 0u; j < 4u; ++j)
      if (col + j < N) bv[j] = float(bias[col + j]);

    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
      uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
      if (row >= M) continue;
      vec4 y = acc[i][h] + bv;
      y = 0.5 * y * (1.0 + tanh(0.7978845608 * (y + 0.044715 * y * y * y)));
      uint e0 = row * N + col;
      if ((N & 3u) == 0u) {
        c4[e0 >> 2] = f16vec4(y);
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) c4[(e0 + j) >> 2][(e0 + j) & 3u] = float16_t(y[j]);
      }
    }
  }
}
