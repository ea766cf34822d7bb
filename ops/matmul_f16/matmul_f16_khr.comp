#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// c[m x n] = a[m x k] * b[k x n] in f16, row-major, summed in f32 on tensor cores through the cross-vendor
// GL_KHR_cooperative_matrix: the variant for devices with VK_KHR_cooperative_matrix (AMD RDNA3 and later, Intel
// Arc, NVIDIA), hand-written as ops/matmul_f16/matmul_f16_coopmat.comp (GL_NV_cooperative_matrix) translated. Its
// products are 16x16x16 (f16 A and B, f32 accumulator), the one shape every vendor lists (NVIDIA also lists 16x8x16,
// AMD RDNA3 only 16x16x16). A workgroup of 256 invocations computes a 128x128 tile of c as 8 subgroup tiles of
// 64x32, each 4x2 accumulators of 16x16. The subgroup size is the device's (32 on NVIDIA, 64 or 32 on AMD, 8, 16 or
// 32 on Intel), so the subgroup tiles go round the gl_NumSubgroups subgroups by gl_SubgroupID: with 8 or more
// subgroups (subgroups of 32 or fewer) one pass computes all 8 and subgroups past the 8th only load; with 4 (wave64)
// or 2 subgroups the whole k loop runs 2 or 4 times, each pass computing the next 4 or 2 subgroup tiles. The loads
// into shared memory go by gl_LocalInvocationID and the guarded stores by gl_SubgroupInvocationID and
// gl_SubgroupSize, so nothing assumes 32 lanes. k advances 64 at a time through one shared buffer per matrix, rows
// skewed by 16 bytes (a 128x64 slice of a, a 64x128 slice of b: 35 KB, with 4 KB for staging, of the 48 KB a
// workgroup may have): each invocation loads its 4 + 4 16-byte pieces of the next slices into registers before the
// subgroups multiply the current ones, then stores them between two barriers. Tiles wholly inside c, with k a
// multiple of 64 and n of 8, load and store 16 bytes at a time (every 16-byte word of a and b then lies inside its
// tensor); elsewhere loads go half by half through a second view of each input (zero past the edges) and each
// accumulator goes through shared memory to guarded stores.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
// Each input twice: as 16-byte words for the tiles wholly inside, and half by half at the edges, where a word
// could reach past the tensor's last byte (each tensor is bound at exactly its bytes).
layout(set = 0, binding = 0, std430) readonly buffer A { uvec4 a8[]; };
layout(set = 0, binding = 0, std430) readonly buffer AHalves { float16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { uvec4 b8[]; };
layout(set = 0, binding = 1, std430) readonly buffer BHalves { float16_t b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float16_t c[]; };

const uint BM = 128u, BN = 128u, BK = 64u;
const uint L = 16u;                               // every fragment is 16x16, every product 16x16x16
const uint NT = 256u;                             // invocations in the workgroup
const uint WM = 64u, WN = 32u;                    // one subgroup tile
const uint WT_COLS = BN / WN;                     // subgroup tiles across the tile
const uint WTILES = (BM / WM) * WT_COLS;          // 8 subgroup tiles in the tile
const uint CR = WM / L, CC = WN / L;              // a subgroup tile's accumulators
const uint AS = BK / 8u + 1u, BS = BN / 8u + 1u;  // row strides in uvec4 (8 halves), one uvec4 of skew
const uint AQ = BK / 8u, BQ = BN / 8u;            // uvec4s per row of a slice
const uint A_LOADS = BM * BK / 8u / NT, B_LOADS = BK * BN / 8u / NT;
shared uvec4 As[BM * AS];  // As[r * AS + q]: halves 8q..8q+7 of row r of the slice of a
shared uvec4 Bs[BK * BS];  // Bs[kk * BS + q]: halves 8q..8q+7 of row kk of the slice of b
shared float16_t stage[WTILES][L * L];  // one 16x16 fragment per subgroup tile, for the guarded stores

#define ACC coopmat<float, gl_ScopeSubgroup, L, L, gl_MatrixUseAccumulator>
#define ACC16 coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, L, L, gl_MatrixUseB>

uint M, K, N, row0, col0;
bool fast;

// Two halves as the 32 bits that hold them in memory, the first in the low half.
uint pair(float16_t low, float16_t high) { return packFloat2x16(f16vec2(low, high)); }

// Eight halves of a starting at (row0 + r, kq * 8), zero past the edges.
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

    ACC acc[CR][CC];
    [[unroll]] for (uint i = 0u; i < CR; ++i)
      [[unroll]] for (uint j = 0u; j < CC; ++j) acc[i][j] = ACC(0.0);

    // The first slices. A previous pass ended on the k loop's last barrier, after every subgroup's last read of
    // As and Bs, and its stores read only stage.
    uvec4 ra[A_LOADS], rb[B_LOADS];
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
      if (busy) {
        [[unroll]] for (uint kk = 0u; kk < BK; kk += L) {
          MAT_A ma[CR];
          [[unroll]] for (uint i = 0u; i < CR; ++i)
            coopMatLoad(ma[i], As, (sr * WM + i * L) * AS + kk / 8u, AS, gl_CooperativeMatrixLayoutRowMajor);
          [[unroll]] for (uint j = 0u; j < CC; ++j) {
            MAT_B mb;
            coopMatLoad(mb, Bs, kk * BS + (sc * WN + j * L) / 8u, BS, gl_CooperativeMatrixLayoutRowMajor);
            [[unroll]] for (uint i = 0u; i < CR; ++i) acc[i][j] = coopMatMulAdd(ma[i], mb, acc[i][j]);
          }
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

    if (busy) {
      [[unroll]] for (uint i = 0u; i < CR; ++i)
        [[unroll]] for (uint j = 0u; j < CC; ++j) {
          ACC16 h = ACC16(acc[i][j]);
          uint r = row0 + sr * WM + i * L, col = col0 + sc * WN + j * L;
          if (fast) {
            coopMatStore(h, c, r * N + col, N, gl_CooperativeMatrixLayoutRowMajor);
          } else {
            // stage[w] belongs to this subgroup alone: one subgroup computes subgroup tile w, once.
            coopMatStore(h, stage[w], 0u, L, gl_CooperativeMatrixLayoutRowMajor);
            subgroupMemoryBarrierShared();
            subgroupBarrier();
            for (uint e = lane; e < L * L; e += lanes) {
              uint rr = r + e / L, cc = col + e % L;
              if (rr < M && cc < N) c[rr * N + cc] = stage[w][e];
            }
            subgroupBarrier();
          }
        }
    }
  }
}
