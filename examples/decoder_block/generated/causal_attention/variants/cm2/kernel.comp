#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// Causal multi-head attention on f16 q, k and v, o in f32, flash-attention style on tensor cores through
// GL_NV_cooperative_matrix2: workgroup-scope matrices, loads and stores addressed by tensor layouts, per-element
// operations and row reductions. The variant for devices with VK_NV_cooperative_matrix2, hand-written; it is
// the catalog's attention_f16 cm2 kernel (ops/attention_f16/attention_f16_cm2.comp in kernelgen's repository) on
// the decoder's layout, token-major ([tokens, heads, head_dim], a head's rows heads * head_dim apart), with its
// output in f32, for any head_dim up to 128. The tensors are addressed as 3-D layouts, tokens x heads x head_dim,
// sliced to one head (a span of 1 in the middle) and clamped: a row past tokens and a column past head_dim read
// as 0 and are never stored, so the matrices are always 128 wide and smaller heads (a small model's 64, the tiny
// configuration's 16, any other) are zero-padded to it. A workgroup takes 64 queries of one head (the query
// blocks run longest first: the last queries attend to the most keys) and loads them once, 64 x 128, as the A
// operand. Then for each block of 64 keys up to the diagonal:
//   1. S = q k^T, 64 x 64 in f32: the keys are loaded transposed (a tensor view reversing the layout's
//      dimensions) as the B operand. At head_dim 128 the blocks below the diagonal (wholly inside tokens and
//      before every query of the workgroup) load through an unclamped 2-D layout, tokens x heads * 128 with the
//      head's offset, whose row stride is marked a multiple of 8 halves (16-byte loads); the diagonal block (the
//      last, k0 == q0) loads clamped, and a per-element operation gives its keys past their query (key column >
//      query row, which covers every key past tokens) -inf;
//   2. the online softmax, each row's values held smeared across its columns: the block's row max of the raw
//      scores (a row reduction), the new running max, the weights exp2((s - max) * log2(e) / sqrt(head_dim)) and
//      the old max's rescale factor (per-element operations), and the running sum (a row reduction of the f32
//      weights). The scale applies to differences, never to a score before it is compared: a compiler may fuse
//      s * scale - max into one rounding, which at scores near 1e11 is thousands off the max it was compared
//      with. The running max starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf;
//   3. O = O * factor + P v: the rescale factors widened to O's 64 x 128 by a row reduction that keeps any one
//      of the row's (equal) values, the weights rounded to f16 as the A operand, the value rows as the B operand.
// At the end each row is divided by its sum and stored through the clamped layout. A key past a row's query has
// weight 0, and on tensor cores 0 times an infinite or NaN value is NaN, which the reference (which leaves such
// keys out) does not have. Only the diagonal block has such keys (within tokens); so the workgroup first checks
// that block's value rows for an infinity or NaN (the 16-bit patterns), and where it finds one it adds that
// block element by element instead, each row only its keys up to its query, with the same f16 weights kept in
// shared memory.
// A head_dim above 128 takes the plain path: the portable kernel's algorithm in f32, below.
// kernelgen: dispatch (tokens + 63) / 64 heads 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint tokens; uint heads; uint head_dim; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 3, std430) buffer O { float o[]; };

const uint D = 128u;            // the matrices' width: head_dim, zero-padded
const uint Br = 64u, Bc = 64u;  // queries per workgroup, keys per block
const uint NT = 256u;           // invocations
const float kLog2e = 1.4426950408889634;
const float kLowest = -3.4028234663852886e38;
const float kSmallestHalf = 5.9604644775390625e-08;  // 2^-24

#define SCORES coopmat<float, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseAccumulator>
#define OUTPUT coopmat<float, gl_ScopeWorkgroup, Br, D, gl_MatrixUseAccumulator>

shared uint nonfinite_values;  // the diagonal block's value rows hold an infinity or NaN
shared float16_t weights[Br * Bc];  // the diagonal block's f16 weights, where it is added element by element
shared float plain_weights[NT];     // the plain path's: each subgroup's block of weights

float max_of(const in float a, const in float b) { return max(a, b); }
float sum_of(const in float a, const in float b) { return a + b; }
float either(const in float a, const in float b) { return a; }  // a row's values are all equal

// The diagonal block (k0 == q0): key column c lies past query row r when c > r.
float causal(const in uint r, const in uint c, const in float s) {
  return c > r ? uintBitsToFloat(0xff800000u) : s;
}

float scaled_exp(const in uint r, const in uint c, const in float x, const in float scale) {
  return exp2(x * scale);
}

float keep_weight(const in uint r, const in uint c, const in float p) {
  weights[r * Bc + c] = float16_t(p);
  return p;
}

// O[r, c] plus row r's weights times column c of the diagonal block's values, keys 0..r of the block only (and
// none past tokens: `keys` of them lie inside); the padding columns past head_dim stay 0.
float add_values(const in uint r, const in uint c, const in float acc, const in uint q0, const in uint keys) {
  uint H = dims.heads, hd = dims.head_dim, h = gl_WorkGroupID.y;
  if (c >= hd) return acc;
  float sum = acc;
  uint n = min(r + 1u, keys);
  for (uint j = 0u; j < n; ++j) sum += float(weights[r * Bc + j]) * float(v[((q0 + j) * H + h) * hd + c]);
  return sum;
}

// Whether a half is an infinity or NaN (all exponent bits set).
bool nonfinite(float16_t x) { return (packFloat2x16(f16vec2(x, float16_t(0.0))) & 0x7c00u) == 0x7c00u; }

// A head_dim above 128: the portable kernel's algorithm in f32, one query row per subgroup at a time. The lanes
// score a block of as many keys as the subgroup has lanes (a dot product each, then the scale), the subgroup
// takes the block's max and sum, and each lane owns dims lane, lane + width, ... of the row's output, kept in o
// itself (which this subgroup alone writes, and this invocation alone reads back): rescaled, plus the block's
// weighted value rows, only the keys up to the query.
void plain(uint q0) {
  uint T = dims.tokens, H = dims.heads, hd = dims.head_dim, h = gl_WorkGroupID.y;
  uint lane = gl_SubgroupInvocationID, width = gl_SubgroupSize, w0 = gl_SubgroupID * width;
  float scale = 1.0 / sqrt(float(hd));
  for (uint i = q0 + gl_SubgroupID; i < min(q0 + Br, T); i += gl_NumSubgroups) {
    uint row = (i * H + h) * hd;
    for (uint d = lane; d < hd; d += width) o[row + d] = 0.0;
    float m = kLowest, l = 0.0;
    for (uint j0 = 0u; j0 <= i; j0 += width) {
      uint j = j0 + lane;
      float s = uintBitsToFloat(0xff800000u);
      if (j <= i) {
        uint key = (j * H + h) * hd;
        float dot = 0.0;
        for (uint d = 0u; d < hd; ++d) dot += float(q[row + d]) * float(k[key + d]);
        s = dot * scale;
      }
      float new_max = max(m, subgroupMax(s));
      float p = exp(s - new_max);
      // 0 below f16's smallest value, 2^-24, as the reference, but against the running max.
      p = p < kSmallestHalf ? 0.0 : p;
      float f = exp(m - new_max);
      l = l * f + subgroupAdd(p);
      m = new_max;
      plain_weights[w0 + lane] = p;
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      uint n = min(width, i + 1u - j0);
      for (uint d = lane; d < hd; d += width) {
        float acc = o[row + d] * f;
        for (uint jj = 0u; jj < n; ++jj) acc += plain_weights[w0 + jj] * float(v[((j0 + jj) * H + h) * hd + d]);
        o[row + d] = acc;
      }
      subgroupBarrier();  // every lane is done with the block's weights
    }
    for (uint d = lane; d < hd; d += width) o[row + d] /= l;
  }
}

void main() {
  const uint T = dims.tokens, H = dims.heads, hd = dims.head_dim, h = gl_WorkGroupID.y;
  const uint t = gl_LocalInvocationID.x;
  const uint q0 = ((T + Br - 1u) / Br - 1u - gl_WorkGroupID.x) * Br;
  if (hd > D) {
    plain(q0);
    return;
  }
  const uint keys = min(Br, T - q0);  // rows of the diagonal block inside tokens
  const float scale = kLog2e / sqrt(float(hd));

  if (t == 0u) nonfinite_values = 0u;
  barrier();
  bool found = false;
  for (uint e = t; e < keys * hd; e += NT) found = found || nonfinite(v[((q0 + e / hd) * H + h) * hd + e % hd]);
  if (found) atomicOr(nonfinite_values, 1u);

  // The tensors as tokens x heads x head_dim, clamped: out of range reads 0, and stores there are dropped.
  tensorLayoutNV<3, gl_CooperativeMatrixClampModeConstantNV> clamped =
      createTensorLayoutNV(3, gl_CooperativeMatrixClampModeConstantNV);
  clamped = setTensorLayoutDimensionNV(clamped, T, H, hd);
  tensorViewNV<3, false, 2, 1, 0> transposed = createTensorViewNV(3, false, 2, 1, 0);
  // At head_dim 128, as tokens x heads * 128 from the head's first element, unclamped, for the blocks inside.
  tensorLayoutNV<2> inside = createTensorLayoutNV(2);
  inside = setTensorLayoutDimensionNV(inside, T, H * D);
  inside = setTensorLayoutStrideNV(inside, (H * D) & ~7u, 1);
  tensorViewNV<2, false, 1, 0> transposed2 = createTensorViewNV(2, false, 1, 0);
  const bool wide = hd == D;

  coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseA> qa;
  coopMatLoadTensorNV(qa, q, 0, sliceTensorLayoutNV(clamped, q0, Br, h, 1, 0, D));

  barrier();
  const bool elementwise = nonfinite_values != 0u;

  SCORES m = SCORES(kLowest), l = SCORES(0.0);
  OUTPUT acc = OUTPUT(0.0);
  for (uint k0 = 0u; k0 <= q0; k0 += Bc) {
    const bool diagonal = k0 == q0;
    const bool fast = wide && !diagonal;

    // 1. Scores.
    coopmat<float16_t, gl_ScopeWorkgroup, D, Bc, gl_MatrixUseB> kt;
    if (fast)
      coopMatLoadTensorNV(kt, k, h * D, sliceTensorLayoutNV(inside, k0, Bc, 0, D), transposed2);
    else
      coopMatLoadTensorNV(kt, k, 0, sliceTensorLayoutNV(clamped, k0, Bc, h, 1, 0, D), transposed);
    SCORES s = coopMatMulAdd(qa, kt, SCORES(0.0));
    if (diagonal) coopMatPerElementNV(s, s, causal);

    // 2. Online softmax.
    SCORES block_max;
    coopMatReduceNV(block_max, s, gl_CooperativeMatrixReduceRowNV, max_of);
    SCORES new_max = block_max;
    for (int e = 0; e < new_max.length(); ++e) new_max[e] = max(m[e], block_max[e]);
    SCORES p, rescale;
    coopMatPerElementNV(p, s - new_max, scaled_exp, scale);
    coopMatPerElementNV(rescale, m - new_max, scaled_exp, scale);
    m = new_max;
    SCORES block_sum;
    coopMatReduceNV(block_sum, p, gl_CooperativeMatrixReduceRowNV, sum_of);
    l = l * rescale + block_sum;

    // 3. Rescale the output rows, add the weights times the values.
    OUTPUT factor;
    coopMatReduceNV(factor, rescale, gl_CooperativeMatrixReduceRowNV, either);
    acc = acc * factor;
    if (diagonal && elementwise) {
      coopMatPerElementNV(p, p, keep_weight);
      barrier();
      coopMatPerElementNV(acc, acc, add_values, q0, keys);
    } else {
      coopmat<float16_t, gl_ScopeWorkgroup, Bc, D, gl_MatrixUseB> vb;
      if (fast)
        coopMatLoadTensorNV(vb, v, h * D, sliceTensorLayoutNV(inside, k0, Bc, 0, D));
      else
        coopMatLoadTensorNV(vb, v, 0, sliceTensorLayoutNV(clamped, k0, Bc, h, 1, 0, D));
      coopmat<float16_t, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseA> pa = coopmat<float16_t, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseA>(p);
      acc = coopMatMulAdd(pa, vb, acc);
    }
  }

  OUTPUT sum;
  coopMatReduceNV(sum, l, gl_CooperativeMatrixReduceRowNV, either);
  for (int e = 0; e < acc.length(); ++e) acc[e] = acc[e] / sum[e];
  coopMatStoreTensorNV(acc, o, 0, sliceTensorLayoutNV(clamped, q0, Br, h, 1, 0, D));
}
