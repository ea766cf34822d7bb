#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// c[m x n] = silu(a[m x k] * b[k x n] + bias[n]) in f16, row-major, summed in f32 on tensor cores
// (GL_NV_cooperative_matrix): the variant for devices with VK_NV_cooperative_matrix, hand-written as
// ops/matmul_f16/matmul_f16_coopmat.comp with an epilogue. A workgroup of 8 subgroups of 32 computes a 128x128
// tile of c, each subgroup 64x32 of it as 4x4 accumulators of 16x8 (16x8x16 f16 products into f32). k advances 64
// at a time through one shared buffer per matrix, rows skewed by 16 bytes; each invocation loads its 16-byte
// pieces of the next slices into registers before the subgroups multiply the current ones, then stores them
// between two barriers. The epilogue: the tile's 128 biases are staged once as 16 equal rows, so that a 16x8
// fragment of them loads as a cooperative matrix and adds to an accumulator of the same type element by element
// (where an element sits inside a fragment is the implementation's); silu then applies to each element, and the
// result is rounded to f16 once. Tiles wholly inside c, with k a multiple of 64 and n of 8, load and store 16
// bytes at a time; elsewhere loads go half by half through a second view of each input (zero past the edges) and
// each result goes through shared memory to guarded stores.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
// Each input twice: as 16-byte words for the tiles wholly inside, and half by half at the edges, where a word
// could reach past the tensor's last byte (each tensor is bound at exactly its bytes).
layout(set = 0, binding = 0, std430) readonly buffer A { uvec4 a8[]; };
layout(set = 0, binding = 0, std430) readonly buffer AHalves { float16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { uvec4 b8[]; };
layout(set = 0, binding = 1, std430) readonly buffer BHalves { float16_t b[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { float16_t bias[]; };
layout(set = 0, binding = 3, std430) writeonly buffer C { float16_t c[]; };

const uint BM = 128u, BN = 128u, BK = 64u;
const uint LM = 16u, LN = 8u, LK = 16u;
const uint SG_ROWS = 2u, SG_COLS = 4u, NT = SG_ROWS * SG_COLS * 32u;
const uint WM = BM / SG_ROWS, WN = BN / SG_COLS;  // one subgroup's part of the tile
const uint CR = WM / LM, CC = WN / LN;            // its accumulators
const uint AS = BK / 8u + 1u, BS = BN / 8u + 1u;  // row strides in uvec4 (8 halves), one uvec4 of skew
const uint A_VECS = BM * BK / 8u, B_VECS = BK * BN / 8u;
const uint A_LOADS = A_VECS / NT, B_LOADS = B_VECS / NT;
shared uvec4 As[BM * AS];  // As[r * AS + q]: halves 8q..8q+7 of row r of the slice of a
shared uvec4 Bs[BK * BS];  // Bs[kk * BS + q]: halves 8q..8q+7 of row kk of the slice of b
shared float16_t stage[NT / 32u][LM * LN];
shared float16_t biases[LM * BN];  // biases[r * BN + c] = bias[col0 + c] for every r (0 past n)

uint M, K, N, row0, col0;
bool fast;

// Two halves as the 32 bits that hold them in memory, the first in the low half.
uint pair(float16_t low, float16_t high) { return packFloat2x16(f16vec2(low, high)); }

// Eight halves of a starting at (r, kq * 8), zero past the edges.
uvec4 load_a(uint r, uint kq) {
  r += row0;
  if (fast) return a8[(r * K) / 8u + kq];
  uvec4 v = uvec4(0u);
  if (r >= M) return v;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 8u + 2u * j, e = r * K + kk;
    v[j] = pair(kk < K ? a[e] : float16_t(0.0), kk + 1u < K ? a[e + 1u] : float16_t(0.0));
  }
  return v;
}

// Eight halves of b starting at (kk, col0 + cq * 8), zero past the edges.
uvec4 load_b(uint kk, uint cq) {
  if (fast) return b8[(kk * N + col0) / 8u + cq];
  uvec4 v = uvec4(0u);
  if (kk >= K) return v;
  uint col = col0 + cq * 8u, e = kk * N + col;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint c0 = col + 2u * j;
    v[j] = pair(c0 < N ? b[e + 2u * j] : float16_t(0.0), c0 + 1u < N ? b[e + 2u * j + 1u] : float16_t(0.0));
  }
  return v;
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  fast = (K % BK) == 0u && (N % 8u) == 0u && row0 + BM <= M && col0 + BN <= N;
  uint t = gl_LocalInvocationID.x, sg = t / 32u, lane = t % 32u;
  uint sr = sg / SG_COLS, sc = sg % SG_COLS;

  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[CR][CC];
  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

  for (uint e = t; e < LM * BN; e += NT) {
    uint col = col0 + e % BN;
    biases[e] = col < N ? bias[col] : float16_t(0.0);
  }

  uvec4 ra[A_LOADS], rb[B_LOADS];
  const uint AQ = BK / 8u, BQ = BN / 8u;
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    uint idx = t + l * NT;
    ra[l] = load_a(idx / AQ, idx % AQ);
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    uint idx = t + l * NT;
    rb[l] = load_b(idx / BQ, idx % BQ);
  }
  [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
    uint idx = t + l * NT;
    As[(idx / AQ) * AS + idx % AQ] = ra[l];
  }
  [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
    uint idx = t + l * NT;
    Bs[(idx / BQ) * BS + idx % BQ] = rb[l];
  }
  barrier();

  for (uint k0 = 0u; k0 < K; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
        uint idx = t + l * NT;
        ra[l] = load_a(idx / AQ, (k0 + BK) / 8u + idx % AQ);
      }
      [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
        uint idx = t + l * NT;
        rb[l] = load_b(k0 + BK + idx / BQ, idx % BQ);
      }
    }
    [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[CR];
      [[unroll]] for (uint i = 0u; i < CR; ++i)
        coopMatLoadNV(ma[i], As, (sr * WM + i * LM) * AS + kk / 8u, AS, false);
      [[unroll]] for (uint j = 0u; j < CC; ++j) {
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb;
        coopMatLoadNV(mb, Bs, kk * BS + (sc * WN + j * LN) / 8u, BS, false);
        [[unroll]] for (uint i = 0u; i < CR; ++i) acc[i][j] = coopMatMulAddNV(ma[i], mb, acc[i][j]);
      }
    }
    barrier();  // every subgroup is done with this slice
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_LOADS; ++l) {
        uint idx = t + l * NT;
        As[(idx / AQ) * AS + idx % AQ] = ra[l];
      }
      [[unroll]] for (uint l = 0u; l < B_LOADS; ++l) {
        uint idx = t + l * NT;
        Bs[(idx / BQ) * BS + idx % BQ] = rb[l];
      }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LN> b16;
      coopMatLoadNV(b16, biases, sc * WN + j * LN, BN, false);
      fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> s = acc[i][j] + fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(b16);
      for (int e = 0; e < s.length(); ++e) {
        float v = s[e];
        s[e] = v * (1.0 / (1.0 + exp(-v)));
      }
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LN> h = fcoopmatNV<16, gl_ScopeSubgroup, LM, LN>(s);
      uint r = row0 + sr * WM + i * LM, col = col0 + sc * WN + j * LN;
      if (fast) {
        coopMatStoreNV(h, c, r * N + col, N, false);
      } else {
        coopMatStoreNV(h, stage[sg], 0u, LN, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = lane; e < LM * LN; e += 32u) {
          uint rr = r + e / LN, cc = col + e % LN;
          if (rr < M && cc < N) c[rr * N + cc] = stage[sg][e];
        }
        subgroupBarrier();
      }
    }
}
