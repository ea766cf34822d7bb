#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// c[m x n] = a[m x k] * b[k x n] in f32, row-major, on tensor cores (GL_NV_cooperative_matrix): the variant for
// devices with VK_NV_cooperative_matrix, whose products take f16 operands into f32 accumulators. Each f32 value x
// is split into two f16 values as it is staged: hi, x rounded to 11 significant bits (in f32, on its bits; 0 where
// |x| < 2^-14, below f16's normal range), and lo = f16((x - hi) * 1024), the rest of x (exact in f32, at most
// 2^-11 |x|) scaled up into f16's normal range. So x = hi + lo / 1024 to about 2^-22 |x|, or to 2^-24 where lo
// falls below f16's normal range on a device that flushes f16 subnormals; no conversion there and back is left
// for a compiler to fold away (the first version, lo = f16((x - f32(f16(x))) * 2048), failed on the H100 with
// errors of hi alone). Three products per fragment pair, in two accumulators:
//   c = hi_a hi_b + (hi_a lo_b + lo_a hi_b) / 1024
// (lo_a lo_b, at most 2^-22 of a product, is left out): the emulation of f32 by f16 parts that CUTLASS's 3xTF32
// GEMMs make with TF32 parts. A tile whose values of a or b are not all finite and at most 65504 in magnitude
// (f16's largest) is computed element by element in f32 instead, from the tensors.
//
// A workgroup of 8 subgroups of 32 computes a 128x128 tile of c, each subgroup 64x32 of it as 4x4 pairs of 16x8
// accumulators (16x8x16 products). k advances 32 at a time through four shared buffers (hi and lo of a 128x32
// slice of a and of a 32x128 slice of b, rows skewed by 16 bytes): each invocation loads its 32 floats of the
// next slices into registers before the subgroups multiply the current ones, then splits and stores them between
// two barriers. Tiles wholly inside c, with k a multiple of 32 and n of 8, load 16 bytes at a time and store
// straight from the accumulators; elsewhere loads go element by element through a second view of each input
// (zero past the edges) and each result goes through shared memory to guarded stores.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
// Each input twice: as 16-byte words for the tiles wholly inside, and float by float at the edges.
layout(set = 0, binding = 0, std430) readonly buffer A { vec4 a4[]; };
layout(set = 0, binding = 0, std430) readonly buffer AFloats { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BFloats { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };

const uint BM = 128u, BN = 128u, BK = 32u;
const uint LM = 16u, LN = 8u, LK = 16u;
const uint SG_ROWS = 2u, SG_COLS = 4u, NT = SG_ROWS * SG_COLS * 32u;
const uint WM = BM / SG_ROWS, WN = BN / SG_COLS;  // one subgroup's part of the tile
const uint CR = WM / LM, CC = WN / LN;            // its accumulator pairs
const uint AS = BK / 8u + 1u, BS = BN / 8u + 1u;  // row strides in uvec4 (8 halves), one uvec4 of skew
const uint AQ = BK / 8u, BQ = BN / 8u;            // pieces of 8 values in a row of a slice
const uint A_PIECES = BM * AQ / NT, B_PIECES = BK * BQ / NT;
const float LO_SCALE = 1024.0;
shared uvec4 Ahi[BM * AS], Alo[BM * AS];  // Ahi[r * AS + q]: halves 8q..8q+7 of row r of the slice of a
shared uvec4 Bhi[BK * BS], Blo[BK * BS];  // Bhi[kk * BS + q]: halves 8q..8q+7 of row kk of the slice of b
shared float stage[NT / 32u][LM * LN];
shared uint exact_only;  // set once a value of the tile's a or b could not be split

uint M, K, N, row0, col0;
bool fast;

// Eight floats of a starting at (row0 + r, k0 + q * 8), zero past the edges, as two vec4.
void load_a(uint r, uint k0, uint q, out vec4 v0, out vec4 v1) {
  r += row0;
  uint kk = k0 + q * 8u;
  if (fast) {
    uint e = (r * K + kk) / 4u;
    v0 = a4[e];
    v1 = a4[e + 1u];
    return;
  }
  float v[8];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) v[j] = r < M && kk + j < K ? a[r * K + kk + j] : 0.0;
  v0 = vec4(v[0], v[1], v[2], v[3]);
  v1 = vec4(v[4], v[5], v[6], v[7]);
}

// Eight floats of b starting at (kk, col0 + q * 8), zero past the edges, as two vec4.
void load_b(uint kk, uint q, out vec4 v0, out vec4 v1) {
  uint col = col0 + q * 8u;
  if (fast) {
    uint e = (kk * N + col) / 4u;
    v0 = b4[e];
    v1 = b4[e + 1u];
    return;
  }
  float v[8];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) v[j] = kk < K && col + j < N ? b[kk * N + col + j] : 0.0;
  v0 = vec4(v[0], v[1], v[2], v[3]);
  v1 = vec4(v[4], v[5], v[6], v[7]);
}

// Whether each of eight values is finite and at most f16's largest in magnitude (false for NaN).
bool splittable(vec4 v0, vec4 v1) {
  return all(lessThanEqual(max(abs(v0), abs(v1)), vec4(65504.0)));
}

// x rounded to 11 significant bits (half an ulp up in magnitude, then cut), exact in f16 for |x| <= 65504; 0 below
// f16's normal range.
vec4 high_part(vec4 v) {
  vec4 cut = uintBitsToFloat((floatBitsToUint(v) + uvec4(0x1000u)) & uvec4(0xffffe000u));
  return mix(cut, vec4(0.0), lessThan(abs(v), vec4(6.103515625e-05)));
}

// Eight values as the 16 bytes of their hi parts and the 16 bytes of their lo parts.
void split(vec4 v0, vec4 v1, out uvec4 hi, out uvec4 lo) {
  vec4 c0 = high_part(v0), c1 = high_part(v1);
  f16vec4 h0 = f16vec4(c0), h1 = f16vec4(c1);
  f16vec4 l0 = f16vec4((v0 - c0) * LO_SCALE), l1 = f16vec4((v1 - c1) * LO_SCALE);
  hi = uvec4(packFloat2x16(h0.xy), packFloat2x16(h0.zw), packFloat2x16(h1.xy), packFloat2x16(h1.zw));
  lo = uvec4(packFloat2x16(l0.xy), packFloat2x16(l0.zw), packFloat2x16(l1.xy), packFloat2x16(l1.zw));
}

// The slice's values this invocation loaded, split into the shared buffers; a value that cannot be split marks
// the tile for the exact path.
void store_slice(vec4 ra[2u * A_PIECES], vec4 rb[2u * B_PIECES]) {
  uint t = gl_LocalInvocationID.x;
  bool ok = true;
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    uint p = t + l * NT;
    ok = ok && splittable(ra[2u * l], ra[2u * l + 1u]);
    split(ra[2u * l], ra[2u * l + 1u], Ahi[(p / AQ) * AS + p % AQ], Alo[(p / AQ) * AS + p % AQ]);
  }
  [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
    uint p = t + l * NT;
    ok = ok && splittable(rb[2u * l], rb[2u * l + 1u]);
    split(rb[2u * l], rb[2u * l + 1u], Bhi[(p / BQ) * BS + p % BQ], Blo[(p / BQ) * BS + p % BQ]);
  }
  if (!ok) exact_only = 1u;
}

// The tile element by element in f32, for values that cannot be split (non-finite, or beyond f16's range).
void exact_tile() {
  for (uint e = gl_LocalInvocationID.x; e < BM * BN; e += NT) {
    uint r = row0 + e / BN, col = col0 + e % BN;
    if (r >= M || col >= N) continue;
    float sum = 0.0;
    for (uint kk = 0u; kk < K; ++kk) sum += a[r * K + kk] * b[kk * N + col];
    c[r * N + col] = sum;
  }
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  fast = (K % BK) == 0u && (N % 8u) == 0u && row0 + BM <= M && col0 + BN <= N;
  uint t = gl_LocalInvocationID.x, sg = t / 32u, lane = t % 32u;
  uint sr = sg / SG_COLS, sc = sg % SG_COLS;
  if (t == 0u) exact_only = 0u;

  // hh: hi_a hi_b; cross: hi_a lo_b + lo_a hi_b, in units of 1/1024.
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> hh[CR][CC], cross[CR][CC];
  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) {
      hh[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
      cross[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
    }

  vec4 ra[2u * A_PIECES], rb[2u * B_PIECES];
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    uint p = t + l * NT;
    load_a(p / AQ, 0u, p % AQ, ra[2u * l], ra[2u * l + 1u]);
  }
  [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
    uint p = t + l * NT;
    load_b(p / BQ, p % BQ, rb[2u * l], rb[2u * l + 1u]);
  }
  barrier();  // exact_only is 0 before any invocation may set it
  store_slice(ra, rb);
  barrier();

  // exact_only is read after a barrier that follows every store to it of the slice just staged, and before
  // the next slice's stores, which come after the next barrier: every invocation reads the same value.
  for (uint k0 = 0u; k0 < K && exact_only == 0u; k0 += BK) {
    bool more = k0 + BK < K;
    if (more) {
      [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
        uint p = t + l * NT;
        load_a(p / AQ, k0 + BK, p % AQ, ra[2u * l], ra[2u * l + 1u]);
      }
      [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
        uint p = t + l * NT;
        load_b(k0 + BK + p / BQ, p % BQ, rb[2u * l], rb[2u * l + 1u]);
      }
    }
    [[unroll]] for (uint kk = 0u; kk < BK; kk += LK) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> ah[CR], al[CR];
      [[unroll]] for (uint i = 0u; i < CR; ++i) {
        uint at = (sr * WM + i * LM) * AS + kk / 8u;
        coopMatLoadNV(ah[i], Ahi, at, AS, false);
        coopMatLoadNV(al[i], Alo, at, AS, false);
      }
      [[unroll]] for (uint j = 0u; j < CC; ++j) {
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> bh, bl;
        uint at = kk * BS + (sc * WN + j * LN) / 8u;
        coopMatLoadNV(bh, Bhi, at, BS, false);
        coopMatLoadNV(bl, Blo, at, BS, false);
        [[unroll]] for (uint i = 0u; i < CR; ++i) {
          hh[i][j] = coopMatMulAddNV(ah[i], bh, hh[i][j]);
          cross[i][j] = coopMatMulAddNV(ah[i], bl, cross[i][j]);
          cross[i][j] = coopMatMulAddNV(al[i], bh, cross[i][j]);
        }
      }
    }
    barrier();  // every subgroup is done with this slice
    if (more) store_slice(ra, rb);
    barrier();
  }

  if (exact_only != 0u) {
    exact_tile();
    return;
  }
  [[unroll]] for (uint i = 0u; i < CR; ++i)
    [[unroll]] for (uint j = 0u; j < CC; ++j) {
      fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> sum = hh[i][j] + cross[i][j] * (1.0 / LO_SCALE);
      uint r = row0 + sr * WM + i * LM, col = col0 + sc * WN + j * LN;
      if (fast) {
        coopMatStoreNV(sum, c, r * N + col, N, false);
      } else {
        coopMatStoreNV(sum, stage[sg], 0u, LN, false);
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
