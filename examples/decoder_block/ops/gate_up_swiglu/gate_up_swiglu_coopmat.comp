#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// y = silu(x wg^T) * (x wu^T), the two products summed in f32 on tensor cores (GL_NV_cooperative_matrix): the variant
// for devices with VK_NV_cooperative_matrix, hand-written as ops/linear/linear_coopmat.comp with two weights. A
// workgroup of 8 subgroups of 32 computes a 128x64 tile of y, each subgroup 64x16 of it as 4x2 accumulators of 16x8 for
// each product (16x8x16 f16 products into f32), and the gating on their elements. k advances 64 at a time through one
// shared buffer per operand, rows skewed by 16 bytes: the 128x64 slice of x, and the 64x64 slices of wg and wu, all
// row-major with k contiguous; the weights' fragments load column-major, which makes them transposed. Each invocation
// loads its pieces of the next slices into registers before the subgroups multiply the current ones, then stores them
// between two barriers. Tiles wholly inside y, with k a multiple of 64 and n of 8, load 16 bytes of x and of a weight
// at a time and store the gated accumulators straight to y; elsewhere loads go element by element (zero past the edges)
// and each accumulator goes through shared memory to guarded stores.
// kernelgen: dispatch (n + 63) / 64 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer WG { uvec4 wg8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WGHalves { float16_t wg[]; };
layout(set = 0, binding = 2, std430) readonly buffer WU { uvec4 wu8[]; };
layout(set = 0, binding = 2, std430) readonly buffer WUHalves { float16_t wu[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };

const uint BM = 128u, BN = 64u, BK = 64u;
const uint LM = 16u, LN = 8u, LK = 16u;
const uint SG_ROWS = 2u, SG_COLS = 4u, NT = SG_ROWS * SG_COLS * 32u;
const uint WM = BM / SG_ROWS, WN = BN / SG_COLS;  // one subgroup's part of the tile
const uint CR = WM / LM, CC = WN / LN;            // its accumulators
const uint AS = BK / 8u + 1u;                     // row stride in uvec4 (8 halves), one uvec4 of skew
const uint AQ = BK / 8u;                          // uvec4s per row of a slice
const uint LOADS = BM * BK / 8u / NT;             // uvec4s of the slice of x per invocation
const uint W_LOADS = BN * BK / 8u / NT;           // ... and of each weight's slice
shared uvec4 Xs[BM * AS];     // Xs[r * AS + q]: halves 8q..8q+7 of row r of the slice of x
shared uvec4 Ws[2][BN * AS];  // Ws[0 gate, 1 up][c * AS + q]: halves 8q..8q+7 of row col0 + c of the weight's slice
shared float stage[NT / 32u][LM * LN];

uint M, K, N, row0, col0;
bool fast;

// Eight halves of x from row row0 + r, k = kq * 8..; zero past the edges.
uvec4 load_x(uint r, uint kq) {
  r += row0;
  if (fast) return x8[(r * K) / 8u + kq];
  uvec4 v = uvec4(0u);
  if (r >= M) return v;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 8u + 2u * j, e = r * K + kk;
    v[j] = packFloat2x16(f16vec2(kk < K ? x[e] : float16_t(0.0), kk + 1u < K ? x[e + 1u] : float16_t(0.0)));
  }
  return v;
}

// Eight halves of wg (which 0) or wu (which 1) from row col0 + c, k = kq * 8..; zero past the edges.
float16_t weight(uint which, uint e) { return which == 0u ? wg[e] : wu[e]; }
uvec4 load_w(uint which, uint c, uint kq) {
  c += col0;
  if (fast) return which == 0u ? wg8[(c * K) / 8u + kq] : wu8[(c * K) / 8u + kq];
  uvec4 v = uvec4(0u);
  if (c >= N) return v;
  [[unroll]] for (uint j = 0u; j < 4u; ++j) {
    uint kk = kq * 8u + 2u * j, e = c * K + kk;
    v[j] = packFloat2x16(f16vec2(kk < K ? weight(which, e) : float16_t(0.0),
                                 kk + 1u < K ? weight(which, e + 1u) : float16_t(0.0)));
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

  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[2][CR][CC];
  [[unroll]] for (uint h = 0u; h < 2u; ++h)
    [[unroll]] for (uint i = 0u; i < CR; ++i)
      [[unroll]] for (uint j = 0u; j < CC; ++j) acc[h][i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

  uvec4 rx[LOADS], rw[2][W_LOADS];
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    uint idx = t + l * NT;
    rx[l] = load_x(idx / AQ, idx % AQ);
  }
  [[unroll]] for (uint h = 0u; h < 2u; ++h)
    [[unroll]] for (uint l = 0u; l < W_LOADS; ++l) {
      uint idx = t + l * NT;
      rw[h][l] = load_w(h, idx / AQ, idx % AQ);
    }
  [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
    uint idx = t + l * NT;
    Xs[(idx / AQ) * AS + idx % AQ] = rx[l];
  }
  [[unroll]] for (uint h = 0u; h < 2u; ++h)
    [[unroll]] for (uint l = 0u; l < W_LOADS; ++l) {
      uint idx = t + l * NT;
      Ws[h][(idx / AQ) * AS + idx % AQ] = rw[h][l];
    }
  barrier();

  for (uint k0 = 0u; k0 < K; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
        uint idx = t + l * NT;
        rx[l] = load_x(idx / AQ, (k0 + BK) / 8u + idx % AQ);
      }
      [[unroll]] for (uint h = 0u; h < 2u; ++h)
        [[unroll]] for (uint l = 0u; l < W_LOADS; ++l) {
          uint idx = t + l * NT;
          rw[h][l] = load_w(h, idx / AQ, (k0 + BK) / 8u + idx % AQ);
        }
    }
    [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ma[CR];
      [[unroll]] for (uint i = 0u; i < CR; ++i)
        coopMatLoadNV(ma[i], Xs, (sr * WM + i * LM) * AS + kk / 8u, AS, false);
      [[unroll]] for (uint h = 0u; h < 2u; ++h)
        [[unroll]] for (uint j = 0u; j < CC; ++j) {
          fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> mb;
          coopMatLoadNV(mb, Ws[h], (sc * WN + j * LN) * AS + kk / 8u, AS, true);
          [[unroll]] for (uint i = 0u; i < CR; ++i) acc[h][i][j] = coopMatMulAddNV(ma[i], mb, acc[h][i][j]);
        }
    }
    barrier();  // every subgroup is done with this slice
    if (more) {
      [[unroll]] for (uint l = 0u; l < LOADS; ++l) {
        uint idx = t + l * NT;
        Xs[(idx / AQ) * AS + idx % AQ] = rx[l];
      }
      [[unroll]] for (uint h = 0u; h < 2u; ++h)
        [[unroll]] for (uint l = 0u; l < W_LOADS; ++l) {
          uint idx = t + l * NT;
          Ws[h][(idx / AQ) * AS + idx % AQ] = rw[h][l];
        }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) {
      uint r = row0 + sr * WM + i * LM, col = col0 + sc * WN + j * LN;
      // The gating, element by element: both accumulators have the same type, so element e of each is the same
      // element of the tile.
      fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> gated;
      for (int e = 0; e < gated.length(); ++e) {
        float gv = acc[0][i][j][e];
        gated[e] = gv * (1.0 / (1.0 + exp(-gv))) * acc[1][i][j][e];
      }
      if (fast) {
        coopMatStoreNV(gated, y, r * N + col, N, false);
      } else {
        coopMatStoreNV(gated, stage[sg], 0u, LN, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = lane; e < LM * LN; e += 32u) {
          uint rr = r + e / LN, cc = col + e % LN;
          if (rr < M && cc < N) y[rr * N + cc] = stage[sg][e];
        }
        subgroupBarrier();
      }
    }
}
