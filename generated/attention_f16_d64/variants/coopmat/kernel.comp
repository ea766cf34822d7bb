#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// o = softmax(q k^T / sqrt(64), causal) v for each head in f16, flash-attention style on tensor cores
// (GL_NV_cooperative_matrix, 16x8x16 f16 products into f32): the variant for devices with
// VK_NV_cooperative_matrix, hand-written from attention_f16's (ops/attention_f16/attention_f16_coopmat.comp) for
// heads of 64, with blocks of 64 keys where that one takes 32. A workgroup of 4 subgroups of 32 takes 64 queries
// of one head, 16 per subgroup, whose q fragments stay in registers (q is staged through the keys' shared buffer,
// of the same shape); the query blocks run longest first (the last queries attend to the most keys). Blocks of 64
// keys and their values are staged in shared memory, rows skewed by 16 bytes, each invocation loading its pieces
// of the next block into registers while the current one is used. Per block a subgroup:
//   1. multiplies its q fragments by the keys (column-major fragments of the key rows, which transposes them):
//      16 x 64 scores in f32, stored to shared memory;
//   2. runs the online softmax on them, two invocations per query row, 32 keys each (the causal mask: keys past
//      the row's query score -inf): the new running max of the raw scores over both halves (a shuffle), the
//      weights exp2((s - max) * log2(e) / sqrt(64)) written to shared memory as f16, the running sum, and the
//      row's rescale factor for the old max. The scale applies to differences, never to a score before it is
//      compared: a compiler may fuse s * scale - max into one rounding, which at scores near 1e11 is thousands
//      off the max it was compared with;
//   3. rescales its 16 x 64 f32 output accumulators row by row and adds the weights times the values (row-major
//      fragments of the value rows). Which row an accumulator element lies in is the implementation's: a matrix
//      of the accumulators' type loaded from a table of row numbers says, element by element.
// At the end each row is divided by its sum, rounded to f16 and stored: straight to o when all 64 queries lie
// inside seq, else through shared memory with the rows past seq left out. The running max starts at -FLT_MAX,
// not -inf, so that a -inf score never meets -inf - -inf. Rows of q, k and v are 128 bytes, so 16-byte loads
// never pass the end of a tensor; keys past seq are staged as zeros and masked.
// kernelgen: dispatch (seq + 63) / 64 heads 1
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint heads; uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { uvec4 q8[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { uvec4 k8[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { float16_t o[]; };

const uint D = 64u, DQ = D / 8u;        // the head dimension; 16-byte words per row
const uint BQ = 64u, BKV = 64u;         // queries per workgroup, keys per block
const uint NT = 128u;                   // invocations: 4 subgroups of 32
const uint LM = 16u, LN = 8u, LK = 16u;
const uint AS = DQ + 1u;                // shared row stride in 16-byte words, one of skew
const uint KV_LOADS = BKV * DQ / NT;    // 16-byte words of a key (and of a value) block per invocation
const float kScale = 0.18033688011112042;  // log2(e) / sqrt(64)
const float kLowest = -3.4028234663852886e38;
shared uvec4 Ks[BKV * AS];
shared uvec4 Vs[BKV * AS];
shared float Ss[4][LM * BKV];      // a subgroup's 16 x 64 scores
shared float16_t Ps[4][LM * BKV];  // its weights, then its f16 output fragments at the edge
shared float rowtab[LM * LN];      // rowtab[r * 8 + c] = r
shared float rowval[4][LM];        // a per-row factor of each subgroup's rows

void main() {
  uint seq = dims.seq, base = gl_WorkGroupID.y * seq;  // the head's first row
  uint q0 = ((seq + BQ - 1u) / BQ - 1u - gl_WorkGroupID.x) * BQ;
  uint t = gl_LocalInvocationID.x, sg = t / 32u, lane = t % 32u;
  uint r = lane >> 1, half_ = lane & 1u, qi = q0 + sg * LM + r;

  for (uint e = t; e < LM * LN; e += NT) rowtab[e] = float(e / LN);
  for (uint e = t; e < BQ * DQ; e += NT) {  // q, through the keys' buffer (BQ == BKV)
    uint row = e / DQ, c = e % DQ;
    Ks[row * AS + c] = q0 + row < seq ? q8[(base + q0 + row) * DQ + c] : uvec4(0u);
  }
  uvec4 rk[KV_LOADS], rv[KV_LOADS];
  [[unroll]] for (uint l = 0u; l < KV_LOADS; ++l) {
    uint e = t + l * NT, row = e / DQ, c = e % DQ;
    rk[l] = row < seq ? k8[(base + row) * DQ + c] : uvec4(0u);
    rv[l] = row < seq ? v8[(base + row) * DQ + c] : uvec4(0u);
  }
  barrier();

  fcoopmatNV<16, gl_ScopeSubgroup, LM, LK> qa[D / LK];
  [[unroll]] for (uint d = 0u; d < D / LK; ++d) coopMatLoadNV(qa[d], Ks, (sg * LM) * AS + d * 2u, AS, false);
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> rowid;
  coopMatLoadNV(rowid, rowtab, 0u, LN, false);
  fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> acc[D / LN];
  [[unroll]] for (uint j = 0u; j < D / LN; ++j) acc[j] = fcoopmatNV<32, gl_ScopeSubgroup, LM, LN>(0.0);

  barrier();  // every subgroup has its q fragments before the first keys overwrite them
  float m = kLowest, l = 0.0;
  uint last = min(q0 + BQ, seq);  // keys 0..last-1 are needed by some query of the workgroup
  for (uint k0 = 0u; k0 < last; k0 += BKV) {
    [[unroll]] for (uint i = 0u; i < KV_LOADS; ++i) {
      uint e = t + i * NT;
      Ks[(e / DQ) * AS + e % DQ] = rk[i];
      Vs[(e / DQ) * AS + e % DQ] = rv[i];
    }
    barrier();
    uint next = k0 + BKV;
    if (next < last) {
      [[unroll]] for (uint i = 0u; i < KV_LOADS; ++i) {
        uint e = t + i * NT, row = next + e / DQ, c = e % DQ;
        rk[i] = row < seq ? k8[(base + row) * DQ + c] : uvec4(0u);
        rv[i] = row < seq ? v8[(base + row) * DQ + c] : uvec4(0u);
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

    // 2. Online softmax: this invocation's row r, keys half_ * 32 .. half_ * 32 + 31 of the block.
    float sv[32];
    float block_max = kLowest;
    [[unroll]] for (uint c = 0u; c < 32u; ++c) {
      uint col = half_ * 32u + c;
      sv[c] = k0 + col <= qi ? Ss[sg][r * BKV + col] : uintBitsToFloat(0xff800000u);
      block_max = max(block_max, sv[c]);
    }
    block_max = max(block_max, subgroupShuffleXor(block_max, 1u));
    float new_max = max(m, block_max);
    float rescale = exp2((m - new_max) * kScale);
    float sum = 0.0;
    [[unroll]] for (uint c = 0u; c < 32u; ++c) {
      float p = exp2((sv[c] - new_max) * kScale);
      sum += p;
      Ps[sg][r * BKV + half_ * 32u + c] = float16_t(p);
    }
    sum += subgroupShuffleXor(sum, 1u);
    l = l * rescale + sum;
    m = new_max;
    if (half_ == 0u) rowval[sg][r] = rescale;
    subgroupMemoryBarrierShared();
    subgroupBarrier();

    // 3. Rescale the output rows, add the weights times the values.
    fcoopmatNV<32, gl_ScopeSubgroup, LM, LN> factor;
    for (int e = 0; e < factor.length(); ++e) factor[e] = rowval[sg][uint(rowid[e])];
    [[unroll]] for (uint j = 0u; j < D / LN; ++j)
      for (int e = 0; e < factor.length(); ++e) acc[j][e] *= factor[e];
    [[unroll]] for (uint kk = 0u; kk < BKV / LK; ++kk) {
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
  for (int e = 0; e < inverse.length(); ++e) inverse[e] = rowval[sg][uint(rowid[e])];
  uint row0 = q0 + sg * LM;
  bool inside = q0 + BQ <= seq;
  [[unroll]] for (uint j = 0u; j < D / LN; ++j) {
    for (int e = 0; e < inverse.length(); ++e) acc[j][e] *= inverse[e];
    fcoopmatNV<16, gl_ScopeSubgroup, LM, LN> h = fcoopmatNV<16, gl_ScopeSubgroup, LM, LN>(acc[j]);
    if (inside) {
      coopMatStoreNV(h, o, (base + row0) * D + j * LN, D, false);
    } else {
      coopMatStoreNV(h, Ps[sg], 0u, LN, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      for (uint e = lane; e < LM * LN; e += 32u)
        if (row0 + e / LN < seq) o[(base + row0 + e / LN) * D + j * LN + e % LN] = Ps[sg][e];
      subgroupBarrier();
    }
  }
}
