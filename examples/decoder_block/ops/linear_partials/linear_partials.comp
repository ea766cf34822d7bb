#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// p[s] = x[:, ks] w[:, ks]^T in f32 for each of `splits` ranges ks of k (range s is [s c, min((s + 1) c, k)),
// c = ceil(k / splits)): the portable kernel, hand-written as the block's linear (ops/linear/linear.comp, whose
// 128x128 tiles, 8x8 blocks an invocation and double-buffered 128x8 slices it keeps), workgroup z taking range z
// and writing p[z]. Its loads are vec4s where k and c are multiples of 4 (every range then starts on 4 halves),
// else element by element; both give 0 past the range's end.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 splits
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; uint splits; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { f16vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { f16vec4 w4[]; };
layout(set = 0, binding = 1, std430) readonly buffer WElements { float16_t w1[]; };
layout(set = 0, binding = 2, std430) writeonly buffer P { vec4 p4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer PElements { float p1[]; };
const uint BM = 128u, BN = 128u, BK = 8u;
shared vec4 Xs[2][BK][BM / 4u];  // Xs[buffer][kk][r / 4][r % 4] = x[row0 + r][k0 + kk]
shared vec4 Ws[2][BK][BN / 4u];  // Ws[buffer][kk][c / 4][c % 4] = w[col0 + c][k0 + kk]

uint M, K, N, row0, col0;
uint begin, end;  // this workgroup's range of k
bool quads;       // whether its loads are vec4s

// Four elements of x from row r, k = begin + 4 kq..+3; zero past the edges and the range's end.
vec4 load_x(uint r, uint kq) {
  if (r >= M) return vec4(0.0);
  uint k0 = begin + kq * 4u;
  if (quads) return k0 < end ? vec4(x4[(r * K + k0) >> 2]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j)
    if (k0 + j < end) v[j] = float(x1[r * K + k0 + j]);
  return v;
}

// Four elements of w from row c (output column c), k = begin + 4 kq..+3; zero past the edges and the range's end.
vec4 load_w(uint c, uint kq) {
  if (c >= N) return vec4(0.0);
  uint k0 = begin + kq * 4u;
  if (quads) return k0 < end ? vec4(w4[(c * K + k0) >> 2]) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j)
    if (k0 + j < end) v[j] = float(w1[c * K + k0 + j]);
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint chunk = (K + dims.splits - 1u) / dims.splits;
  begin = min(gl_WorkGroupID.z * chunk, K);
  end = min(begin + chunk, K);
  quads = (K & 3u) == 0u && (chunk & 3u) == 0u;
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
  for (uint k0 = 0u; k0 < end - begin; k0 += BK) {
    bool more = k0 + BK < end - begin;
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
      uint e0 = (gl_WorkGroupID.z * M + row) * N + col;
      if ((N & 3u) == 0u) {
        p4[e0 >> 2] = acc[i][h];
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) p1[e0 + j] = acc[i][h][j];
      }
    }
  }
}
