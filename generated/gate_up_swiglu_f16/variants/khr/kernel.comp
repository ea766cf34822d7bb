#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// y = silu(x wg^T) * (x wu^T) in f16, the two products summed in f32 on tensor cores through the cross-vendor
// GL_KHR_cooperative_matrix: the variant for devices with VK_KHR_cooperative_matrix (AMD RDNA3 and later, Intel
// Arc, NVIDIA), hand-written as gate_up_swiglu_f16_coopmat.comp (GL_NV_cooperative_matrix) translated. Its products
// are 16x16x16 (f16 A and B, f32 accumulator), the one shape every vendor lists. A workgroup of 256 invocations
// computes a 128x64 tile of y as 8 subgroup tiles of 64x16, each 4x1 accumulators of 16x16 for each product, and
// the gating on their elements. The subgroup size is the device's (32 on NVIDIA, 64 or 32 on AMD, 8, 16 or 32 on
// Intel), so the subgroup tiles go round the gl_NumSubgroups subgroups by gl_SubgroupID: with 8 or more subgroups
// (subgroups of 32 or fewer) one pass computes all 8 and subgroups past the 8th only load; with 4 (wave64) or 2
// subgroups the whole k loop runs 2 or 4 times, each pass computing the next 4 or 2 subgroup tiles. The loads into
// shared memory go by gl_LocalInvocationID and the guarded stores by gl_SubgroupInvocationID and gl_SubgroupSize,
// so nothing assumes 32 lanes. k advances 64 at a time through one shared buffer per operand, rows skewed by 16
// bytes: the 128x64 slice of x and the 64x64 slices of wg and wu, all row-major with k contiguous (36 KB, with 4 KB
// for staging, of the 48 KB a workgroup may have); the weights' fragments load column-major, which makes them
// transposed. Each invocation loads its pieces of the next slices into registers before the subgroups multiply the
// current ones, then stores them between two barriers. Tiles wholly inside y, with k a multiple of 64 and n of 8,
// load 16 bytes at a time and store the gated accumulators, rounded to f16, straight to y; elsewhere loads go half
// by half through second views of the inputs (zero past the edges) and each accumulator goes through shared memory
// to guarded stores.
// kernelgen: dispatch (n + 63) / 64 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer WG { uvec4 wg8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WGHalves { float16_t wg[]; };
layout(set = 0, binding = 2, std430) readonly buffer WU { uvec4 wu8[]; };
layout(set = 0, binding = 2, std430) readonly buffer WUHalves { float16_t wu[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float16_t y[]; };

const uint BM = 128u, BN = 64u, BK = 64u;
const uint L = 16u;                          // every fragment is 16x16, every product 16x16x16
const uint NT = 256u;                        // invocations in the workgroup
const uint WM = 64u, WN = 16u;               // one subgroup tile
const uint WT_COLS = BN / WN;                // subgroup tiles across the tile
const uint WTILES = (BM / WM) * WT_COLS;     // 8 subgroup tiles in the tile
const uint CR = WM / L, CC = WN / L;         // a subgroup tile's accumulators, for each product
const uint AS = BK / 8u + 1u;                // row stride in uvec4 (8 halves), one uvec4 of skew
const uint AQ = BK / 8u;                     // uvec4s per row of a slice
const uint LOADS = BM * BK / 8u / NT;        // uvec4s of the slice of x per invocation
const uint W_LOADS = BN * BK / 8u / NT;      // ... and of each weight's slice
shared uvec4 Xs[BM * AS];     // Xs[r * AS + q]: halves 8q..8q+7 of row r of the slice of x
shared uvec4 Ws[2][BN * AS];  // Ws[0 gate, 1 up][c * AS + q]: halves 8q..8q+7 of row col0 + c of the weight's slice
shared float16_t stage[WTILES][L * L];  // one 16x16 fragment per subgroup tile, for the guarded stores

#define ACC coopmat<float, gl_ScopeSubgroup, L, L, gl_MatrixUseAccumulator>
#define ACC16 coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseB>

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
  const uint t = gl_LocalInvocationID.x;
  const uint sg = gl_SubgroupID, nsg = gl_NumSubgroups;
  const uint lane = gl_SubgroupInvocationID, lanes = gl_SubgroupSize;

  // One pass per gl_NumSubgroups subgroup tiles: one pass with 8 or more subgroups. The pass count is the same for
  // the whole workgroup, so the barriers inside stay in uniform control flow; `busy` is the same for a whole
  // subgroup, so the cooperative-matrix operations stay in subgroup-uniform control flow.
  for (uint pass0 = 0u; pass0 < WTILES; pass0 += nsg) {
    const uint w = pass0 + sg;
    const bool busy = w < WTILES;
    const uint sr = w / WT_COLS, sc = w % WT_COLS;

    ACC acc[2][CR][CC];
    [[unroll]] for (uint h = 0u; h < 2u; ++h)
      [[unroll]] for (uint i = 0u; i < CR; ++i)
        [[unroll]] for (uint j = 0u; j < CC; ++j) acc[h][i][j] = ACC(0.0);

    // The first slices. A previous pass ended on the k loop's last barrier, after every subgroup's last read of
    // Xs and Ws, and its stores read only stage.
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
      if (busy) {
        [[unroll]] for (uint kk = 0u; kk < BK; kk += L) {
          MAT_A ma[CR];
          [[unroll]] for (uint i = 0u; i < CR; ++i)
            coopMatLoad(ma[i], Xs, (sr * WM + i * L) * AS + kk / 8u, AS, gl_CooperativeMatrixLayoutRowMajor);
          [[unroll]] for (uint h = 0u; h < 2u; ++h)
            [[unroll]] for (uint j = 0u; j < CC; ++j) {
              // Element (kk', c') of this B fragment is weight row sc * WN + j * L + c', k = kk + kk': the
              // column-major load of the row-major slice is its transpose.
              MAT_B mb;
              coopMatLoad(mb, Ws[h], (sc * WN + j * L) * AS + kk / 8u, AS, gl_CooperativeMatrixLayoutColumnMajor);
              [[unroll]] for (uint i = 0u; i < CR; ++i) acc[h][i][j] = coopMatMulAdd(ma[i], mb, acc[h][i][j]);
            }
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

    if (busy) {
      [[unroll]] for (uint i = 0u; i < CR; ++i)
        [[unroll]] for (uint j = 0u; j < CC; ++j) {
          uint r = row0 + sr * WM + i * L, col = col0 + sc * WN + j * L;
          // The gating, element by element: both accumulators have the same type, so element e of each is the
          // same element of the tile.
          ACC gated32 = acc[0][i][j];
          for (int e = 0; e < gated32.length(); ++e) {
            float gv = acc[0][i][j][e];
            gated32[e] = gv * (1.0 / (1.0 + exp(-gv))) * acc[1][i][j][e];
          }
          ACC16 gated = ACC16(gated32);
          if (fast) {
            coopMatStore(gated, y, r * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
          } else {
            // stage[w] belongs to this subgroup alone: one subgroup computes subgroup tile w, once.
            coopMatStore(gated, stage[w], 0u, L, gl_CooperativeMatrixLayoutRowMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint e = lane; e < L * L; e += lanes) {
              uint rr = r + e / L, cc = col + e % L;
              if (rr < M && cc < N) y[rr * N + cc] = stage[w][e];
            }
            subgroupBarrier();
          }
        }
    }
  }
}
