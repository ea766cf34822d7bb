#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// Causal multi-head attention on f16 q, k and v, o in f32, flash-attention style on tensor cores
// (GL_NV_cooperative_matrix, 16x8x16 f16 products into f32): the variant for devices with
// VK_NV_cooperative_matrix, hand-written. It is the catalog's attention_f16 variant
// (ops/attention_f16/attention_f16_coopmat.comp in kernelgen's repository) on the decoder's layout, token-major
// ([tokens, heads, head_dim], a head's rows heads * head_dim apart), with its output in f32. At head_dim 128 a
// workgroup of 4 subgroups of 32 takes 64 queries of one head, 16 per subgroup, whose q fragments stay in
// registers; the query blocks run longest first (the last queries attend to the most keys). Blocks of 32 keys
// and their values are staged in shared memory, rows skewed by 16 bytes, each invocation loading its pieces of
// the next block into registers while the current one is used. Per block a subgroup:
//   1. multiplies its q fragments by the keys (column-major fragments of the key rows, which transposes them):
//      16 x 32 scores in f32, stored to shared memory;
//   2. runs the online softmax on them, two invocations per query row, 16 keys each (the causal mask: keys past
//      the row's query score -inf): the new running max of the raw scores over both halves (a shuffle), the
//      weights exp2((s - max) * log2(e) / sqrt(128)) written to shared memory as f16, the running sum, and the
//      row's rescale factor for the old max. The scale applies to differences, never to a score before it is
//      compared: a compiler may fuse s * scale - max into one rounding, which at scores near 1e11 is thousands
//      off the max it was compared with;
//   3. rescales its 16 x 128 f32 output accumulators row by row and adds the weights times the values (row-major
//      fragments of the value rows). Which element of the 16 x 8 tile an accumulator element is, is the
//      implementation's: a matrix of the accumulators' type loaded from a table of positions says, element by
//      element. A key past a row's query has weight 0, and on tensor cores 0 times an infinite or NaN value is
//      NaN, which the reference (which leaves such keys out) does not have: a block whose values hold an infinity
//      or NaN (the invocations check the 16-bit patterns as they stage them) adds its keys element by element
//      instead, each row only its keys up to its query.
// At the end each row is divided by its sum and stored: straight to o when all 64 queries lie inside tokens, else
// through shared memory with the rows past tokens left out. The running max starts at -FLT_MAX, not -inf, so that
// a -inf score never meets -inf - -inf. Rows of q, k and v are 256 bytes, so 16-byte loads never pass the end of
// a tensor; keys past tokens are staged as zeros and masked.
// Any other head_dim (a small model's, the tiny configuration's 16) takes the plain path: the portable kernel's
// algorithm in f32, below.
// kernelgen: dispatch (tokens + 63) / 64 heads 1
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint tokens; uint heads; uint head_dim; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { uvec4 q8[]; };
layout(set = 0, binding = 0, std430) readonly buffer QHalves { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { uvec4 k8[]; };
layout(set = 0, binding = 1, std430) readonly buffer KHalves { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { uvec4 v8[]; };
layout(set = 0, binding = 2, std430) readonly buffer VHalves { float16_t v[]; };
layout(set = 0, binding = 3, std430) buffer O { float o[]; };

const uint D = 128u, DQ = D / 8u;       // the head dimension of the tensor-core path; 16-byte words per row
const uint BQ = 64u, BKV = 32u;         // queries per workgroup, keys per block
const uint NT = 128u;                   // invocations: 4 subgroups of 32
const uint LM = 16u, LN = 8u, LK = 16u;
const uint AS = DQ + 1u;                // shared row stride in 16-byte words, one of skew
const uint KV_LOADS = BKV * DQ / NT;    // 16-byte words of a key (and of a value) block per invocation
const float kScale = 0.12751743082459868;  // log2(e) / sqrt(128)
const float kLowest = -3.4028234663852886e38;
const float kSmallestHalf = 5.9604644775390625e-08;  // 2^-24
shared uvec4 Qs[BQ * AS];
shared uvec4 Ks[BKV * AS];
shared uvec4 Vs[BKV * AS];
shared float Ss[4][LM * BKV];      // a subgroup's 16 x 32 scores, then its f32 output fragments at the edge
shared float16_t Ps[4][LM * BKV];  // its weights
shared float postab[LM * LN];      // postab[r * 8 + c] = r * 8 + c
shared float rowval[4][LM];        // a per-row factor of each subgroup's rows
shared bool nonfinite_values[4];   // each subgroup's: the block's value rows it staged hold an infinity or NaN

// Whether a 16-byte word of halves holds an infinity or NaN (all exponent bits set).
bool any_nonfinite(uvec4 w) {
  uvec4 low = w & 0x7c00u, high = w & 0x7c000000u;
  return any(equal(low, uvec4(0x7c00u))) || any(equal(high, uvec4(0x7c000000u)));
}

const uint PQ = 16u;  // the plain path's queries at a time

// The plain path's shared memory, in the tensor-core path's: the weight of row r, key jj of the block (in the
// scores' 16 x 128 floats), and dim dd of query row r's chunk of 128 dims (as float bits in the keys' staging).
float weight(uint r, uint jj) { return Ss[r >> 2][(r & 3u) * NT + jj]; }
void set_weight(uint r, uint jj, float w) { Ss[r >> 2][(r & 3u) * NT + jj] = w; }
float staged_q(uint r, uint dd) { return uintBitsToFloat(Ks[(r * NT + dd) >> 2][dd & 3u]); }
void set_staged_q(uint r, uint dd, float x) { Ks[(r * NT + dd) >> 2][dd & 3u] = floatBitsToUint(x); }

// Any head_dim but 128: the portable kernel's algorithm (ops/causal_attention/causal_attention.comp), 16 of the
// workgroup's queries at a time, keys in blocks of 128. Invocation t scores key j0 + t against the 16 queries
// (staged 128 dims at a time); invocation r < 16 takes row r's softmax (rowval[0], [1] and [2]: its running max,
// sum and rescale factor); invocation t owns dims t, t + 128, ... of the 16 output rows, kept in o itself.
void plain(uint q0w, uint h) {
  uint T = dims.tokens, H = dims.heads, hd = dims.head_dim, t = gl_LocalInvocationID.x;
  float scale = 1.0 / sqrt(float(hd));
  for (uint q0 = q0w; q0 < min(q0w + BQ, T); q0 += PQ) {
    uint rows = min(PQ, T - q0), last = q0 + rows - 1u;  // the last key any of these queries sees
    barrier();  // the previous queries are done with the row factors
    if (t < PQ) { rowval[0][t] = kLowest; rowval[1][t] = 0.0; }
    for (uint d = t; d < hd; d += NT)
      for (uint r = 0u; r < rows; ++r) o[((q0 + r) * H + h) * hd + d] = 0.0;
    for (uint j0 = 0u; j0 <= last; j0 += NT) {
      uint j = j0 + t;
      float dot[PQ];
      [[unroll]] for (uint r = 0u; r < PQ; ++r) dot[r] = 0.0;
      for (uint d0 = 0u; d0 < hd; d0 += NT) {
        barrier();  // the previous chunk (or block) is done with the staged queries and the weights
        [[unroll]] for (uint r = 0u; r < PQ; ++r)
          set_staged_q(r, t, (r < rows && d0 + t < hd) ? float(q[((q0 + r) * H + h) * hd + d0 + t]) : 0.0);
        barrier();
        if (j <= last) {
          uint key = (j * H + h) * hd, n = min(NT, hd - d0);
          for (uint dd = 0u; dd < n; ++dd) {
            float kd = float(k[key + d0 + dd]);
            [[unroll]] for (uint r = 0u; r < PQ; ++r) dot[r] += staged_q(r, dd) * kd;
          }
        }
      }
      [[unroll]] for (uint r = 0u; r < PQ; ++r)
        set_weight(r, t, (r < rows && j <= q0 + r) ? dot[r] * scale : uintBitsToFloat(0xff800000u));
      barrier();
      if (t < rows) {
        float mb = weight(t, 0u);
        for (uint jj = 1u; jj < NT; ++jj) mb = max(mb, weight(t, jj));
        float mn = max(rowval[0][t], mb), sum = 0.0;
        for (uint jj = 0u; jj < NT; ++jj) {
          float p = exp(weight(t, jj) - mn);
          p = p < kSmallestHalf ? 0.0 : p;
          set_weight(t, jj, p);
          sum += p;
        }
        float f = exp(rowval[0][t] - mn);
        rowval[2][t] = f;
        rowval[1][t] = rowval[1][t] * f + sum;
        rowval[0][t] = mn;
      }
      barrier();
      uint count = min(NT, last + 1u - j0);
      for (uint d = t; d < hd; d += NT) {
        float acc[PQ];
        [[unroll]] for (uint r = 0u; r < PQ; ++r)
          acc[r] = r < rows ? o[((q0 + r) * H + h) * hd + d] * rowval[2][r] : 0.0;
        for (uint jj = 0u; jj < count; ++jj) {
          float vd = float(v[((j0 + jj) * H + h) * hd + d]);
          // Only keys up to each row's query: a later key's value (an infinity, say) must not meet its 0 weight.
          [[unroll]] for (uint r = 0u; r < PQ; ++r)
            if (j0 + jj <= q0 + r) acc[r] += weight(r, jj) * vd;
        }
        [[unroll]] for (uint r = 0u; r < PQ; ++r)
          if (r < rows) o[((q0 + r) * H + h) * hd + d] = acc[r];
      }
    }
    barrier();
    for (uint d = t; d < hd; d += NT)
      for (uint r = 0u; r < rows; ++r) o[((q0 + r) * H + h) * hd + d] /= rowval[1][r];
  }
}

void main() {
  uint tokens = dims.tokens, H = dims.heads, h = gl_WorkGroupID.y;
  uint q0 = ((tokens + BQ - 1u) / BQ - 1u - gl_WorkGroupID.x) * BQ;
  uint t = gl_LocalInvocationID.x, sg = t / 32u, lane = t % 32u;
  if (dims.head_dim != D) {
    plain(q0, h);
    return;
  }
  uint r = lane >> 1, half_ = lane & 1u, qi = q0 + sg * LM + r;

  for (uint e = t; e < LM * LN; e += NT) postab[e] = float(e);
  for (uint e = t; e < BQ * DQ; e += NT) {
    uint row = e / DQ, c = e % DQ;
    Qs[row * AS + c] = q0 + row < tokens ? q8[((q0 + row) * H + h) * DQ + c] : uvec4(0u);
  }
  uvec4 rk[KV_LOADS], rv[KV_LOADS];
  [[unroll]] for (uint l = 0u; l < KV_LOADS; ++l) {
    uint e = t + l * NT, row = e / DQ, c = e % DQ;
    rk[l] = row < tokens ? k8[(row * H + h) * DQ + c] : uvec4(0u);
    rv[l] = row < tokens ? v8[(row * H + h) * DQ + c] : uvec4(0u);
  }
  barrier();

  fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> qa[D / LK];
  [[unroll]] for (uint d = 0u; d < D / LK; ++d) coopMatLoadNV(qa[d], Qs, (sg * LM) * AS + d * 2u, AS, false);
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> pos;  // r * 8 + c of each element
  coopMatLoadNV(pos, postab, 0u, LN, false);
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[D / LN];
  [[unroll]] for (uint j = 0u; j < D / LN; ++j) acc[j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

  float m = kLowest, l = 0.0;
  uint last = min(q0 + BQ, tokens);  // keys 0..last-1 are needed by some query of the workgroup
  for (uint k0 = 0u; k0 < last; k0 += BKV) {
    bool staged_nonfinite = false;
    [[unroll]] for (uint i = 0u; i < KV_LOADS; ++i) {
      uint e = t + i * NT;
      Ks[(e / DQ) * AS + e % DQ] = rk[i];
      Vs[(e / DQ) * AS + e % DQ] = rv[i];
      staged_nonfinite = staged_nonfinite || any_nonfinite(rv[i]);
    }
    staged_nonfinite = subgroupAny(staged_nonfinite);
    if (lane == 0u) nonfinite_values[sg] = staged_nonfinite;
    barrier();
    bool plain_values = nonfinite_values[0] || nonfinite_values[1] || nonfinite_values[2] || nonfinite_values[3];
    uint next = k0 + BKV;
    if (next < last) {
      [[unroll]] for (uint i = 0u; i < KV_LOADS; ++i) {
        uint e = t + i * NT, row = next + e / DQ, c = e % DQ;
        rk[i] = row < tokens ? k8[(row * H + h) * DQ + c] : uvec4(0u);
        rv[i] = row < tokens ? v8[(row * H + h) * DQ + c] : uvec4(0u);
      }
    }

    // 1. Scores.
    [[unroll]] for (uint j = 0u; j < BKV / LN; ++j) {
      fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> s = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);
      [[unroll]] for (uint d = 0u; d < D / LK; ++d) {
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> kb;
        coopMatLoadNV(kb, Ks, (j * LN) * AS + d * 2u, AS, true);
        s = coopMatMulAddNV(qa[d], kb, s);
      }
      coopMatStoreNV(s, Ss[sg], j * LN, BKV, false);
    }
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // 2. Online softmax: this invocation's row r, keys half_ * 16 .. half_ * 16 + 15 of the block.
    float sv[16];
    float block_max = kLowest;
    [[unroll]] for (uint c = 0u; c < 16u; ++c) {
      uint col = half_ * 16u + c;
      sv[c] = k0 + col <= qi ? Ss[sg][r * BKV + col] : uintBitsToFloat(0xff800000u);
      block_max = max(block_max, sv[c]);
    }
    block_max = max(block_max, subgroupShuffleXor(block_max, 1u));
    float new_max = max(m, block_max);
    float rescale = exp2((m - new_max) * kScale);
    float sum = 0.0;
    [[unroll]] for (uint c = 0u; c < 16u; ++c) {
      float p = exp2((sv[c] - new_max) * kScale);
      sum += p;
      Ps[sg][r * BKV + half_ * 16u + c] = float16_t(p);
    }
    sum += subgroupShuffleXor(sum, 1u);
    l = l * rescale + sum;
    m = new_max;
    if (half_ == 0u) rowval[sg][r] = rescale;
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // 3. Rescale the output rows, add the weights times the values.
    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> factor;
    for (int e = 0; e < factor.length(); ++e) factor[e] = rowval[sg][uint(pos[e]) / LN];
    [[unroll]] for (uint j = 0u; j < D / LN; ++j)
      for (int e = 0; e < factor.length(); ++e) acc[j][e] *= factor[e];
    if (plain_values) {
      for (int e = 0; e < pos.length(); ++e) {
        uint row = uint(pos[e]) / LN, col = uint(pos[e]) % LN, query = q0 + sg * LM + row;
        for (uint j = 0u; j < D / LN; ++j) {
          uint d = j * LN + col;
          float sum = 0.0;
          for (uint key = 0u; key < BKV && k0 + key <= query; ++key)
            sum += float(Ps[sg][row * BKV + key]) * unpackHalf2x16(Vs[key * AS + d / 8u][(d % 8u) / 2u])[d % 2u];
          acc[j][e] += sum;
        }
      }
    } else [[unroll]] for (uint kk = 0u; kk < BKV / LK; ++kk) {
      fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> pa;
      coopMatLoadNV(pa, Ps[sg], kk * LK, BKV, false);
      [[unroll]] for (uint j = 0u; j < D / LN; ++j) {
        fcoopmatNV<16, gl_ScopeSubgroup, LK, LN> vb;
        coopMatLoadNV(vb, Vs, (kk * LK) * AS + j, AS, false);
        acc[j] = coopMatMulAddNV(pa, vb, acc[j]);
      }
    }
    barrier();  // every subgroup is done with this block's keys, values and weights
  }

  if (half_ == 0u) rowval[sg][r] = 1.0 / l;
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> inverse;
  for (int e = 0; e < inverse.length(); ++e) inverse[e] = rowval[sg][uint(pos[e]) / LN];
  uint row0 = q0 + sg * LM;
  bool inside = q0 + BQ <= tokens;
  [[unroll]] for (uint j = 0u; j < D / LN; ++j) {
    for (int e = 0; e < inverse.length(); ++e) acc[j][e] *= inverse[e];
    if (inside) {
      coopMatStoreNV(acc[j], o, (row0 * H + h) * D + j * LN, H * D, false);
    } else {
      coopMatStoreNV(acc[j], Ss[sg], 0u, LN, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = lane; e < LM * LN; e += 32u)
        if (row0 + e / LN < tokens) o[((row0 + e / LN) * H + h) * D + j * LN + e % LN] = Ss[sg][e];
      subgroupBarrier();
    }
  }
}
