#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// c[m x n] = a[m x k] * b[k x n] in f32, row-major, on tensor cores through GL_NV_cooperative_matrix2: matmul's
// coopmat variant (ops/matmul/matmul_coopmat.comp, whose header says how f32 is emulated by f16 parts and how each
// tile bounds what those parts lose) with its products on workgroup-scope matrices loaded from the same shared
// buffers, and its tile stored through a clamped tensor layout, then read back for the bounds' check. Issue 37 asks
// whether f16 parts on cooperative_matrix2 beat the coopmat variant: on an H200 (benchmarks/RESULTS.md, "f32 from f16
// parts on cooperative_matrix2") matmul_bias_gelu written this way ran 8435.4 us against its coopmat variant's
// 3573.1, and matmul's and bmm's failed validation (NaN on the outliers and sparse cases, not chased).
// Kept as the record of that measurement, not as a variant; its bmm and matmul_bias_gelu forms were the
// transformations ops/matmul/derive_coopmat_family.py applies to the coopmat kernel.
//
// A workgroup of 256 invocations computes a 128x128 tile of c as one workgroup-scope accumulator, with each slice's
// beside it (the driver shares both out among the subgroups). k advances 32 at a time through four shared
// buffers (hi and lo of a 128x32 slice of a and of a 32x128 slice of b, rows skewed by 16 bytes): each invocation
// loads its 32 floats of the next slices into registers before the subgroups multiply the current ones, then splits
// and stores them between two barriers. Each 8 values of a row inside the tensor, where k (for a) or n (for b) is a
// multiple of 4, load as two 16-byte words; elsewhere loads go element by element through a second view of each
// input (zero past the edges), so that matmul's DIMS take both ways (k = 100 is a multiple of 4). The tile is stored
// through a clamped tensor layout (what lies outside c is dropped), and each invocation then reads back its share of
// the stored results to check their bounds.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
// Each input twice: as 16-byte words for the tiles wholly inside, and float by float at the edges.
layout(set = 0, binding = 0, std430) readonly buffer A { vec4 a4[]; };
layout(set = 0, binding = 0, std430) readonly buffer AFloats { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 1, std430) readonly buffer BFloats { float b[]; };
// Read back after the tile is stored, for the bounds' check (coherent: other invocations stored it).
layout(set = 0, binding = 2, std430) coherent buffer C { float c[]; };

const uint BM = 128u, BN = 128u, BK = 32u;
const uint NT = 256u;
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>
const uint AS = BK / 8u + 1u, BS = BN / 8u + 1u;  // row strides in uvec4 (8 halves), one uvec4 of skew
const uint AQ = BK / 8u, BQ = BN / 8u;            // pieces of 8 values in a row of a slice
const uint A_PIECES = BM * AQ / NT, B_PIECES = BK * BQ / NT;
const uint NONFINITE = 0x7f800000u;  // the bits of +inf: |x|'s bits reach it only for an infinity or NaN
// The largest bound on the f16 parts' error that a result keeps, relative to its magnitude (absolute below 1):
// 2^-15, a third of matmul's TOLERANCE 1e-4, which leaves the rest to the sums' rounding (about 2^-20 relative,
// 2^-17 at worst at k = 4096: 128 slices' sums added in f32).
const float ACCEPTED = 3.0517578125e-05;
shared uvec4 Ahi[BM * AS], Alo[BM * AS];  // Ahi[r * AS + q]: halves 8q..8q+7 of row r of the slice of a
shared uvec4 Bhi[BK * BS], Blo[BK * BS];  // Bhi[kk * BS + q]: halves 8q..8q+7 of row kk of the slice of b
shared uint largest[2];    // the bits of a slice's largest |x| in a ([0]) and in b ([1])
shared uint refit[2];      // set where a value of the slice of even ([0]) or odd ([1]) number did not fit its scale
shared uint redo;          // set where a result's bound on the error of the f16 parts is too wide: redone in f32
// The error bound's terms (unscaled): per row of the tile, what its values of a may lose in all and the largest
// |a|; per group of 8 columns, the same of b, what the 16 invocations that load the group found and their total.
shared vec2 row_bound[BM];
shared vec2 column_parts[NT / BQ][BQ];
shared vec2 column_bound[BQ];

uint M, K, N, row0, col0;
bool a_words, b_words;  // whether a's and b's rows start on 16 bytes (k, n multiples of 4)

// Eight floats of a starting at (row0 + r, k0 + q * 8), zero past the edges, as two vec4.
void load_a(uint r, uint k0, uint q, out vec4 v0, out vec4 v1) {
  r += row0;
  uint kk = k0 + q * 8u;
  if (a_words && r < M && kk + 8u <= K) {
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
  if (b_words && kk < K && col + 8u <= N) {
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

// The largest |x| of four values as bits (an unsigned order of magnitudes; NaN's above every other).
uint largest_bits(vec4 v) {
  uvec4 u = floatBitsToUint(abs(v));
  return max(max(u.x, u.y), max(u.z, u.w));
}

// The largest magnitudes of this invocation's values of a slice of a and b, into largest[] (cleared before).
void take_largest(vec4 ra[2u * A_PIECES], vec4 rb[2u * B_PIECES]) {
  uint la = 0u, lb = 0u;
  [[unroll]] for (uint i = 0u; i < 2u * A_PIECES; ++i) la = max(la, largest_bits(ra[i]));
  [[unroll]] for (uint i = 0u; i < 2u * B_PIECES; ++i) lb = max(lb, largest_bits(rb[i]));
  la = subgroupMax(la);
  lb = subgroupMax(lb);
  if (subgroupElect()) {
    atomicMax(largest[0], la);
    atomicMax(largest[1], lb);
  }
}

// The power of two that brings a slice whose largest |x| has these bits into [2^14, 2^15), at most 2^126 (a slice
// of zeros and subnormals below 2^-112 stays below).
int scale_for(uint bits) { return min(141 - int(bits >> 23u), 126); }

// 2^e for e in [-126, 127].
float power_of_two(int e) { return uintBitsToFloat(uint(e + 127) << 23u); }

// x rounded to 11 significant bits (half an ulp up in magnitude, then cut), exact in f16 for |x| < 2^15; 0 below
// f16's normal range.
vec4 high_part(vec4 v) {
  vec4 cut = uintBitsToFloat((floatBitsToUint(v) + uvec4(0x1000u)) & uvec4(0xffffe000u));
  return mix(cut, vec4(0.0), lessThan(abs(v), vec4(6.103515625e-05)));
}

// What a lo part may lose of the rest r = x - hi: all of it below f16's normal range (a device may flush f16
// subnormals, and rounding to the subnormals' grid loses at most |r| either way), else at most 2^-10 |r| (rounding
// to zero; 2^-11 to nearest), which counts among the relative errors.
vec4 lost(vec4 r) { return mix(vec4(0.0), abs(r), lessThan(abs(r), vec4(6.103515625e-05))); }

// The largest of four values (not NaN; a NaN fails the split's check first).
float largest_of(vec4 v) { return max(max(v.x, v.y), max(v.z, v.w)); }

// Eight values times `scale` as the 16 bytes of their hi parts and the 16 bytes of their lo parts, with what their
// lo parts may lose (`lost`) and their largest magnitude (scaled); whether every scaled value is below 2^15 (false
// for an infinity or NaN, and where scaling overflowed).
bool split(vec4 v0, vec4 v1, float scale, out uvec4 hi, out uvec4 lo, out vec4 lost0, out vec4 lost1,
           out float largest_scaled) {
  v0 *= scale;
  v1 *= scale;
  vec4 c0 = high_part(v0), c1 = high_part(v1);
  f16vec4 h0 = f16vec4(c0), h1 = f16vec4(c1);
  f16vec4 l0 = f16vec4(v0 - c0), l1 = f16vec4(v1 - c1);
  lost0 = lost(v0 - c0);
  lost1 = lost(v1 - c1);
  largest_scaled = largest_of(max(abs(v0), abs(v1)));
  hi = uvec4(packFloat2x16(h0.xy), packFloat2x16(h0.zw), packFloat2x16(h1.xy), packFloat2x16(h1.zw));
  lo = uvec4(packFloat2x16(l0.xy), packFloat2x16(l0.zw), packFloat2x16(l1.xy), packFloat2x16(l1.zw));
  return all(lessThan(abs(v0), vec4(32768.0))) && all(lessThan(abs(v1), vec4(32768.0)));
}

// The slice's values this invocation loaded, scaled by 2^sa (a) and 2^sb (b), split into hi and lo parts, 8 to a
// uvec4, and what the error bound (below) needs of them, in the scaled units: per piece of a (a row, 8 of k), the
// sum of what its lo parts may lose and its largest magnitude; over its pieces of b (8 columns each, the same 8 in
// every piece), the sum of the most a column's lo part may lose, and the largest magnitude. Whether all fit.
struct Split {
  uvec4 ahi[A_PIECES], alo[A_PIECES], bhi[B_PIECES], blo[B_PIECES];
  float a_lost[A_PIECES], a_largest[A_PIECES], b_lost, b_largest;
};
bool split_slice(vec4 ra[2u * A_PIECES], vec4 rb[2u * B_PIECES], int sa, int sb, out Split parts) {
  float scale_a = power_of_two(sa), scale_b = power_of_two(sb);
  bool fits = true;
  vec4 lost0, lost1;
  float largest_scaled;
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    fits = split(ra[2u * l], ra[2u * l + 1u], scale_a, parts.ahi[l], parts.alo[l], lost0, lost1, largest_scaled) &&
           fits;
    vec4 sum = lost0 + lost1;
    parts.a_lost[l] = (sum.x + sum.y) + (sum.z + sum.w);
    parts.a_largest[l] = largest_scaled;
  }
  parts.b_lost = 0.0;
  parts.b_largest = 0.0;
  [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
    fits = split(rb[2u * l], rb[2u * l + 1u], scale_b, parts.bhi[l], parts.blo[l], lost0, lost1, largest_scaled) &&
           fits;
    parts.b_lost += largest_of(max(lost0, lost1));
    parts.b_largest = max(parts.b_largest, largest_scaled);
  }
  return fits;
}

// The split values into the shared buffers.
void store_split(Split parts) {
  uint t = gl_LocalInvocationID.x;
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    uint p = t + l * NT, at = (p / AQ) * AS + p % AQ;
    Ahi[at] = parts.ahi[l];
    Alo[at] = parts.alo[l];
  }
  [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
    uint p = t + l * NT, at = (p / BQ) * BS + p % BQ;
    Bhi[at] = parts.bhi[l];
    Blo[at] = parts.blo[l];
  }
}

// This invocation's pieces of the slice of a and b at k0, into registers.
void load_slice(uint k0, out vec4 ra[2u * A_PIECES], out vec4 rb[2u * B_PIECES]) {
  uint t = gl_LocalInvocationID.x;
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    uint p = t + l * NT;
    load_a(p / AQ, k0, p % AQ, ra[2u * l], ra[2u * l + 1u]);
  }
  [[unroll]] for (uint l = 0u; l < B_PIECES; ++l) {
    uint p = t + l * NT;
    load_b(k0 + p / BQ, p % BQ, rb[2u * l], rb[2u * l + 1u]);
  }
}

// The slice's largest magnitudes, taken by the whole workgroup: every invocation returns the same two bits.
uvec2 slice_largest(vec4 ra[2u * A_PIECES], vec4 rb[2u * B_PIECES]) {
  if (gl_LocalInvocationID.x < 2u) largest[gl_LocalInvocationID.x] = 0u;
  barrier();
  take_largest(ra, rb);
  barrier();
  uvec2 bits = uvec2(largest[0], largest[1]);
  barrier();  // read by every invocation before the next clear
  return bits;
}

// The tile in f32 through shared memory (a's and b's slices of 16 as float bits in Ahi and Bhi), for a tile whose
// a or b holds an infinity, a NaN or a magnitude of 2^95 or more, or whose error bound is too wide: 8x8 results per
// invocation, each a sum of products in order of k.
const uint EK = 16u, EA = BM * EK / 8u / NT, EB = EK * BN / 8u / NT, EQ = BN / 8u;
void exact_tile() {
  uint t = gl_LocalInvocationID.x, tr = t / EQ, tc = t % EQ;
  float sums[8][8];
  [[unroll]] for (uint i = 0u; i < 8u; ++i)
    [[unroll]] for (uint j = 0u; j < 8u; ++j) sums[i][j] = 0.0;
  for (uint k0 = 0u; k0 < K; k0 += EK) {
    barrier();  // every invocation is done with the shared buffers
    [[unroll]] for (uint l = 0u; l < EA; ++l) {
      uint p = t + l * NT, r = p / 2u, q = p % 2u;
      vec4 v0, v1;
      load_a(r, k0, q, v0, v1);
      Ahi[r * 4u + 2u * q] = floatBitsToUint(v0);
      Ahi[r * 4u + 2u * q + 1u] = floatBitsToUint(v1);
    }
    [[unroll]] for (uint l = 0u; l < EB; ++l) {
      uint p = t + l * NT, kk = p / EQ, q = p % EQ;
      vec4 v0, v1;
      load_b(k0 + kk, q, v0, v1);
      Bhi[kk * 2u * EQ + 2u * q] = floatBitsToUint(v0);
      Bhi[kk * 2u * EQ + 2u * q + 1u] = floatBitsToUint(v1);
    }
    barrier();
    for (uint kk = 0u; kk < EK; ++kk) {
      float av[8], bv[8];
      [[unroll]] for (uint i = 0u; i < 8u; ++i) av[i] = uintBitsToFloat(Ahi[(tr * 8u + i) * 4u + kk / 4u][kk % 4u]);
      [[unroll]] for (uint j = 0u; j < 8u; ++j) bv[j] = uintBitsToFloat(Bhi[kk * 2u * EQ + 2u * tc + j / 4u][j % 4u]);
      [[unroll]] for (uint i = 0u; i < 8u; ++i)
        [[unroll]] for (uint j = 0u; j < 8u; ++j) sums[i][j] += av[i] * bv[j];
    }
  }
  [[unroll]] for (uint i = 0u; i < 8u; ++i)
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
      uint r = row0 + tr * 8u + i, col = col0 + tc * 8u + j;
      if (r < M && col < N) c[r * N + col] = sums[i][j];
    }
}

// A slice's terms of the error bound, unscaled (a's by 2^-sa, b's by 2^-sb), added to the tile's: what the lo
// parts may lose adds up along k, the largest magnitudes are the largest along k.
void add_terms(Split parts, int sa, int sb, inout vec2 row_terms[A_PIECES], inout vec2 column_terms) {
  float unscale_a = power_of_two(-sa), unscale_b = power_of_two(-sb);
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l)
    row_terms[l] = vec2(row_terms[l].x + parts.a_lost[l] * unscale_a,
                        max(row_terms[l].y, parts.a_largest[l] * unscale_a));
  column_terms = vec2(column_terms.x + parts.b_lost * unscale_b, max(column_terms.y, parts.b_largest * unscale_b));
}

void main() {
  M = dims.m; K = dims.k; N = dims.n;
  row0 = gl_WorkGroupID.y * BM;
  col0 = gl_WorkGroupID.x * BN;
  a_words = K % 4u == 0u;
  b_words = N % 4u == 0u;
  uint t = gl_LocalInvocationID.x;
  if (t < 2u) refit[t] = 0u;
  if (t == 0u) redo = 0u;

  // total: the sums over the slices so far, added in f32; part: one slice's on the tensor cores. Both scaled by
  // 2^sa 2^sb.
  ACC total = ACC(0.0);

  // The error bound's terms over the slices so far (unscaled), for the rows of a this invocation loads (x: what
  // their lo parts may lose in all, y: the largest magnitude) and its 8 columns of b (the same); and what scaling
  // the sums down lost below f32's normal range.
  vec2 row_terms[A_PIECES], column_terms = vec2(0.0);
  float floor_error = 0.0;
  vec4 ra[2u * A_PIECES], rb[2u * B_PIECES];
  Split parts;
  load_slice(0u, ra, rb);
  uvec2 bits = slice_largest(ra, rb);
  bool exact = any(greaterThanEqual(bits, uvec2(NONFINITE)));
  int sa = scale_for(bits.x), sb = scale_for(bits.y);
  split_slice(ra, rb, sa, sb, parts);
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) row_terms[l] = vec2(0.0);
  add_terms(parts, sa, sb, row_terms, column_terms);
  store_split(parts);
  barrier();

  uint slice = 0u;
  for (uint k0 = 0u; k0 < K && !exact; k0 += BK, ++slice) {
    bool more = k0 + BK < K, fits = true;
    uint next = (slice + 1u) % 2u;
    if (more) load_slice(k0 + BK, ra, rb);
    {
      MAT_A ah, al;
      MAT_B bh, bl;
      coopMatLoad(ah, Ahi, 0u, AS, gl_CooperativeMatrixLayoutRowMajor);
      coopMatLoad(al, Alo, 0u, AS, gl_CooperativeMatrixLayoutRowMajor);
      coopMatLoad(bh, Bhi, 0u, BS, gl_CooperativeMatrixLayoutRowMajor);
      coopMatLoad(bl, Blo, 0u, BS, gl_CooperativeMatrixLayoutRowMajor);
      ACC part = coopMatMulAdd(al, bh, ACC(0.0));
      part = coopMatMulAdd(ah, bl, part);
      part = coopMatMulAdd(ah, bh, part);
      total = total + part;
    }
    barrier();  // every subgroup is done with this slice
    // refit[slice % 2] (the previous slice's refit[next]) was last read after the barrier that ended the slice
    // before this one (below) and is set next after the next slice's products: it is cleared here for reuse.
    if (t == 0u) refit[slice % 2u] = 0u;
    if (more) {
      fits = split_slice(ra, rb, sa, sb, parts);
      store_split(parts);
      if (!fits) refit[next] = 1u;
    }
    barrier();
    // Every invocation reads refit[next] between the barrier above and the clear after the next slice's products:
    // the branch is uniform. The slice is loaded again (from the L2) rather than kept in registers.
    if (more && refit[next] != 0u) {
      load_slice(k0 + BK, ra, rb);
      bits = slice_largest(ra, rb);
      exact = any(greaterThanEqual(bits, uvec2(NONFINITE)));
      int na = min(sa, scale_for(bits.x)), nb = min(sb, scale_for(bits.y));
      // Larger values than before: the sums so far scaled down to the new scales (by at most 2^-240 each way,
      // in steps that 2^e holds). Each sum so far then errs by at most f32's smallest normal value in the new
      // scaled units, which floor_error counts.
      if (na + nb < sa + sb) {
        int floor_exponent = -126 - na - nb;
        floor_error += floor_exponent > 127 ? uintBitsToFloat(NONFINITE) : power_of_two(max(floor_exponent, -126));
      }
      for (int down = (na - sa) + (nb - sb); down < 0; down -= max(down, -126)) {
        float f = power_of_two(max(down, -126));
        total = total * f;
      }
      sa = na;
      sb = nb;
      split_slice(ra, rb, sa, sb, parts);
      store_split(parts);
      barrier();
    }
    if (more) add_terms(parts, sa, sb, row_terms, column_terms);
  }

  if (exact) {
    exact_tile();
    return;
  }
  // The bound's row and column terms for the whole tile: a row's from its four invocations, a group of 8
  // columns' from the 16 invocations that loaded it.
  [[unroll]] for (uint l = 0u; l < A_PIECES; ++l) {
    vec2 row = vec2(subgroupClusteredAdd(row_terms[l].x, AQ), subgroupClusteredMax(row_terms[l].y, AQ));
    if (t % AQ == 0u) row_bound[t / AQ + l * (NT / AQ)] = row;
  }
  column_parts[t / BQ][t % BQ] = column_terms;
  barrier();
  if (t < BQ) {
    vec2 column = vec2(0.0);
    [[unroll]] for (uint i = 0u; i < NT / BQ; ++i)
      column = vec2(column.x + column_parts[i][t].x, max(column.y, column_parts[i][t].y));
    column_bound[t] = column;
  }
  barrier();
  // 2^-(sa + sb) in two halves that f32 holds, of one sign, so that the first step never leaves f32's range
  // where the result stays inside it.
  int unscale = -(sa + sb);
  // A magnitude of 2^95 or more (a scale below 2^-80): the unscaled terms of the bound may have been flushed.
  bool huge = min(sa, sb) < -80;
  float unscale_1 = power_of_two(unscale / 2), unscale_2 = power_of_two(unscale - unscale / 2);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lc =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lc = setTensorLayoutDimensionNV(lc, M, N);
  ACC sum = total * unscale_1;
  sum = sum * unscale_2;
  coopMatStoreTensorNV(sum, c, 0u, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
  for (uint e = t; e < BM * BN; e += NT) {
    uint rr = row0 + e / BN, cc = col0 + e % BN;
    if (rr < M && cc < N) {
      float v = c[rr * N + cc];
      vec2 row = row_bound[rr - row0], column = column_bound[(cc - col0) / 8u];
      float bound = 2.0 * (row.x * column.y + row.y * column.x) + floor_error;
      if (!(bound <= ACCEPTED * max(1.0, abs(v))) || huge) atomicOr(redo, 1u);
    }
  }
  // A result whose bound is too wide: the whole tile again in f32, over what was stored. The barrier orders the
  // stores to c above before exact_tile's, and redo's writes before its read.
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
  if (redo != 0u) exact_tile();
}
