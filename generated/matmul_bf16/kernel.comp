#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
// c[m x n] = a[m x k] * b[k x n] in bf16, row-major, summed in f32. A bf16 is the upper half of an f32: each
// element is widened exactly as its bits shifted up 16 (uintBitsToFloat(uint(v) << 16)) as it is staged, the
// products are f32 multiply-adds, and each result is rounded once to the nearest bf16, ties to even, in integers.
// A 16x16 workgroup computes a 128x128 tile of c, invocation (tx, ty) an 8x8 block of it: rows 4ty..4ty+3 and
// 64+4ty..64+4ty+3, columns 4tx..4tx+3 and 64+4tx..64+4tx+3, so that its shared-memory reads and its stores are
// vec4s. k advances 8 at a time through two shared buffers (the 128x8 slice of a stored k-major, the 8x128 slice
// of b as it is): each invocation loads four elements of each next slice into registers before multiplying the
// current one, then stores them, widened, into the other buffer; one barrier per slice. Four consecutive
// elements load as one 8-byte u16vec4 where the row length is a multiple of 4, else one by one; loads past an edge
// give 0, and stores are guarded.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
// Each tensor twice: four elements at a time, and one by one (a u16vec4 takes no dynamic index).
layout(set = 0, binding = 0, std430) readonly buffer A { u16vec4 a4[]; };
layout(set = 0, binding = 0, std430) readonly buffer AElements { uint16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { u16vec4 b4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BElements { uint16_t b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { u16vec4 c4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer CElements { uint16_t c[]; };
const uint BM = 128u, BN = 128u, BK = 8u;
shared vec4 As[2][BK][BM / 4u];  // As[buffer][kk][r / 4][r % 4] = a[row0 + r][k0 + kk]
shared vec4 Bs[2][BK][BN / 4u];  // Bs[buffer][kk][c / 4][c % 4] = b[k0 + kk][col0 + c]

uint M, K, N, row0, col0;

vec4 widen(uvec4 v) { return uintBitsToFloat(v << 16u); }
float widen1(uint v) { return uintBitsToFloat(v << 16u); }

// The bf16 nearest to each element, ties to even (an overflow carries into the infinity); a NaN stays NaN.
uvec4 bf16_bits(vec4 f) {
  uvec4 b = floatBitsToUint(f);
  uvec4 r = (b + 0x7FFFu + ((b >> 16u) & 1u)) >> 16u;
  [[unroll]] for (uint j = 0u; j < 4u; ++j)
    if (isnan(f[j])) r[j] = 0x7FC0u;
  return r;
}

// Four elements of a from row r, k = 4 kq..4 kq+3, zero past the edges.
vec4 load_a(uint r, uint kq) {
  if (r >= M) return vec4(0.0);
  if ((K & 3u) == 0u) return kq < (K >> 2) ? widen(uvec4(a4[(r * K) / 4u + kq])) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 4u + j, e = r * K + kk;
    if (kk < K) v[j] = widen1(uint(a[e]));
  }
  return v;
}

// Four elements of b from row kk, columns col0 + 4 cq.., zero past the edges.
vec4 load_b(uint kk, uint cq) {
  if (kk >= K) return vec4(0.0);
  uint c0 = col0 + cq * 4u;
  if ((N & 3u) == 0u) return c0 < N ? widen(uvec4(b4[(kk * N + c0) / 4u])) : vec4(0.0);
  vec4 v = vec4(0.0);
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint e = kk * N + c0 + j;
    if (c0 + j < N) v[j] = widen1(uint(b[e]));
  }
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, t = gl_LocalInvocationIndex;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
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
    [[unroll]] for (uint i = 0u; i < 8u; ++i) {
      uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + (i - 4u));
      if (row >= M) continue;
      uvec4 y = bf16_bits(acc[i][h]);
      uint e0 = row * N + col;
      if ((N & 3u) == 0u) {
        c4[e0 >> 2] = u16vec4(y);
      } else {
        for (uint j = 0u; j < 4u && col + j < N; ++j) c[e0 + j] = uint16_t(y[j]);
      }
    }
  }
}
