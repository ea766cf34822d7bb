#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// o = softmax(q k^T / sqrt(64), causal) v for each head in f16, flash-attention style on tensor cores through
// GL_NV_cooperative_matrix2: workgroup-scope matrices, loads and stores addressed by tensor layouts, per-element
// operations and row reductions. The variant for devices with VK_NV_cooperative_matrix2, hand-written: attention_f16's
// (ops/attention_f16/attention_f16_cm2.comp, whose header says how each step works) for heads of 64, with blocks of
// 128 keys, so that a block's scores, 64 x 128, have the output's own shape: each row's running max, sum and rescale
// factors are held smeared across 128 columns, as the output rows they scale, and multiply them element by element
// with no row reduction to widen them. 256 invocations (8 subgroups). At BENCH_DIMS on an H200 this ran 1021.9 us,
// against 1234.7 for blocks of 64 keys with a row reduction to widen the factors (benchmarks/gpu/
// attention_cm2_sweep.py's choices, benchmarks/RESULTS.md). A workgroup takes 64 queries of one head, longest first;
// the last block (the one holding its first query: 128 is a multiple of 64) loads clamped and gives each key past
// its query -inf, and is added element by element where its value rows hold an infinity or NaN (keys past a query
// have weight 0, and 0 times an infinity is NaN on tensor cores), each row only its keys up to its query.
// kernelgen: dispatch (seq + 63) / 64 heads 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint heads; uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 2, std430) readonly buffer V8 { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) buffer O { float16_t o[]; };

const uint D = 64u;  // the head dimension
const uint Br = 64u;   // queries per workgroup
const uint Bc = 128u;  // keys per block
const float kScale = 1.4426950408889634 / sqrt(float(D));  // log2(e) / sqrt(D)
const float kLowest = -3.4028234663852886e38;

#define SCORES coopmat<float, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseAccumulator>
#define OUTPUT coopmat<float, gl_ScopeWorkgroup, Br, D, gl_MatrixUseAccumulator>
#define WEIGHTS coopmat<float16_t, gl_ScopeWorkgroup, Br, Bc, gl_MatrixUseA>

shared uint nonfinite_values;       // the last block's value rows hold an infinity or NaN
shared float16_t weights[Br * Bc];  // the last block's f16 weights, where it is added element by element

float max_of(const in float a, const in float b) { return max(a, b); }
float sum_of(const in float a, const in float b) { return a + b; }
float either(const in float a, const in float b) { return a; }  // a row's values are all equal

// The last block: key k0 + c lies past query q0 + r when k0 + c > q0 + r.
float causal(const in uint r, const in uint c, const in float s, const in uint past) {
  return c > r + past ? uintBitsToFloat(0xff800000u) : s;
}

float scaled_exp(const in uint r, const in uint c, const in float x) { return exp2(x * kScale); }

float keep_weight(const in uint r, const in uint c, const in float p) {
  weights[r * Bc + c] = float16_t(p);
  return p;
}

// O[r, c] plus row r's weights times column c of the last block's values, keys up to the row's query only (and
// none past seq: `keys` of them lie inside). `first` is the block's first value row, as an element index, and
// `past` = q0 - k0.
float add_values(const in uint r, const in uint c, const in float acc, const in uint first, const in uint keys,
                 const in uint past) {
  float sum = acc;
  uint n = min(r + past + 1u, keys);
  for (uint j = 0u; j < n; ++j) sum += float(weights[r * Bc + j]) * float(v[first + j * D + c]);
  return sum;
}

// Whether a 16-byte word of halves holds an infinity or NaN (all exponent bits set).
bool any_nonfinite(uvec4 w) {
  uvec4 low = w & 0x7c00u, high = w & 0x7c000000u;
  return any(equal(low, uvec4(0x7c00u))) || any(equal(high, uvec4(0x7c000000u)));
}

void main() {
  const uint seq = dims.seq, t = gl_LocalInvocationID.x;
  const uint q0 = ((seq + Br - 1u) / Br - 1u - gl_WorkGroupID.x) * Br;
  const uint base = gl_WorkGroupID.y * seq * D;  // the head's first element: a multiple of 8 halves
  const uint last = (q0 / Bc) * Bc;              // the last block's first key
  const uint keys = min(Bc, seq - last);         // rows of the last block inside seq

  if (t == 0u) nonfinite_values = 0u;
  barrier();
  bool found = false;
  for (uint e = t; e < keys * (D / 8u); e += 256u) found = found || any_nonfinite(v8[(base + last * D) / 8u + e]);
  if (found) atomicOr(nonfinite_values, 1u);

  // The head as a seq x D tensor: clamped (rows past seq read as 0, stores to them dropped) and unclamped.
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> clamped =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  clamped = setTensorLayoutDimensionNV(clamped, seq, D);
  tensorLayoutNV<2> inside = createTensorLayoutNV(2);
  inside = setTensorLayoutDimensionNV(inside, seq, D);
  inside = setTensorLayoutStrideNV(inside, D, 1);  // rows of 128 or 256 bytes: 16-byte loads
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

  coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseA> qa;
  coopMatLoadTensorNV(qa, q, base, sliceTensorLayoutNV(clamped, q0, Br, 0, D));

  barrier();
  const bool elementwise = nonfinite_values != 0u;

  SCORES m = SCORES(kLowest), l = SCORES(0.0);
  OUTPUT acc = OUTPUT(0.0);
  for (uint k0 = 0u; k0 <= last; k0 += Bc) {
    const bool edge = k0 == last;

    // 1. Scores.
    coopmat<float16_t, gl_ScopeWorkgroup, D, Bc, gl_MatrixUseB> kt;
    if (edge)
      coopMatLoadTensorNV(kt, k, base, sliceTensorLayoutNV(clamped, k0, Bc, 0, D), transposed);
    else
      coopMatLoadTensorNV(kt, k, base, sliceTensorLayoutNV(inside, k0, Bc, 0, D), transposed);
    SCORES s = coopMatMulAdd(qa, kt, SCORES(0.0));
    if (edge) coopMatPerElementNV(s, s, causal, q0 - k0);

    // 2. Online softmax.
    SCORES block_max;
    coopMatReduceNV(block_max, s, gl_CooperativeMatrixReduceRowNV, max_of);
    SCORES new_max = block_max;
    for (int e = 0; e < new_max.length(); ++e) new_max[e] = max(m[e], block_max[e]);
    SCORES p, rescale;
    coopMatPerElementNV(p, s - new_max, scaled_exp);
    coopMatPerElementNV(rescale, m - new_max, scaled_exp);
    m = new_max;
    WEIGHTS pa = WEIGHTS(p);
    SCORES block_sum;
    coopMatReduceNV(block_sum, p, gl_CooperativeMatrixReduceRowNV, sum_of);
    l = l * rescale + block_sum;

    // 3. Rescale the output rows, add the weights times the values.
    OUTPUT factor;
    coopMatReduceNV(factor, rescale, gl_CooperativeMatrixReduceRowNV, either);
    acc = acc * factor;
    if (edge && elementwise) {
      coopMatPerElementNV(p, p, keep_weight);
      barrier();
      coopMatPerElementNV(acc, acc, add_values, base + k0 * D, keys, q0 - k0);
    } else {
      coopmat<float16_t, gl_ScopeWorkgroup, Bc, D, gl_MatrixUseB> vb;
      if (edge)
        coopMatLoadTensorNV(vb, v, base, sliceTensorLayoutNV(clamped, k0, Bc, 0, D));
      else
        coopMatLoadTensorNV(vb, v, base, sliceTensorLayoutNV(inside, k0, Bc, 0, D));
      acc = coopMatMulAdd(pa, vb, acc);
    }
  }

  OUTPUT sum;
  coopMatReduceNV(sum, l, gl_CooperativeMatrixReduceRowNV, either);
  for (int e = 0; e < acc.length(); ++e) acc[e] = acc[e] / sum[e];
  coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseAccumulator> result =
      coopmat<float16_t, gl_ScopeWorkgroup, Br, D, gl_MatrixUseAccumulator>(acc);
  coopMatStoreTensorNV(result, o, base, sliceTensorLayoutNV(clamped, q0, Br, 0, D));
}
