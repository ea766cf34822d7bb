#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// attention_f16 (heads x seq x HEAD_DIM, causal) with each subgroup owning 16 query rows: subgroup-scope 16 x 16
// matrices, so a row's max and sum are reduced inside one subgroup (coopMatReduceNV at subgroup scope) with no
// shared memory and no barrier, where the workgroup-scope kernel (attention_f16_cm2.comp) holds 64 x 64 f32
// matrices of row state in every invocation and stages its reductions across subgroups. The subgroups of a
// workgroup take neighbouring row groups, so they read the same key and value blocks close together in time.
// Measured on an H200, it ran three times slower than the workgroup-scope kernel (benchmarks/RESULTS.md, "attention_f16
// with each subgroup owning 16 rows"): it is kept as the record of that sweep, not as a variant.
// Choices, for benchmarks/gpu/attention_cm2_sweep.py to set:
//   HEAD_DIM  128 (attention_f16) or 64 (attention_f16_d64);
//   NSG  row groups of 16 a workgroup (its 32-invocation subgroups; a device whose subgroups are wider loops);
//   BC  keys per block, a multiple of 16.
// Per block of BC keys, each subgroup: S = q k^T as BC / 16 matrices of 16 x 16 (f32), the keys loaded
// transposed as B; the running max m and the block's weights p = exp2((s - m) * log2(e) / sqrt(D)); the running
// sum l; then O = O * exp2((m_old - m) * ...) + p v, with O as HEAD_DIM / 16 accumulators. m, l and the rescale
// factor are 16 x 16 matrices each holding its row's value in every column (a row reduction smears it), so they
// combine with O's matrices element by element: matrices of one type share their element layout.
// The block with the subgroup's first query (k0 <= q0 < k0 + BC) loads clamped at the group's last query + 1
// (keys past every query of the group read as 0) and masks each key past its query to -inf. A key past a row's
// query but before the group's last has weight 0, and 0 times an infinite or NaN value is NaN on tensor cores,
// which the reference (leaving such keys out) does not have; so each subgroup first checks the value rows of its
// own 16 keys and, where one holds an infinity or NaN, adds that block element by element, each row only its keys
// up to its query, with the same f16 weights kept in shared memory.
#define HEAD_DIM 128
#define NSG 4
#define BC 32
// kernelgen: dispatch (seq + 63) / 64 heads 1
layout(local_size_x = 32 * NSG) in;
layout(push_constant) uniform Dims { uint heads; uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 2, std430) readonly buffer V8 { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) buffer O { float16_t o[]; };

const uint D = HEAD_DIM;
const uint DC = D / 16u;   // O's 16-column matrices
const uint NB = BC / 16u;  // a block's 16-key matrices
const uint RS = 16u;       // rows a subgroup owns
const uint Br = RS * NSG;  // rows a workgroup owns
const float kScale = 1.4426950408889634 / sqrt(float(D));  // log2(e) / sqrt(D)
const float kLowest = -3.4028234663852886e38;

#define TILE coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define TILE_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define TILE_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

shared float16_t weights[NSG][RS * BC];  // a group's last-block f16 weights, where it adds that block by element

float max_of(const in float a, const in float b) { return max(a, b); }
float sum_of(const in float a, const in float b) { return a + b; }

// Key k0 + 16 n + c lies past query q0 + r when 16 n + c > r + (q0 - k0); `past` = q0 - k0 - 16 n.
float causal(const in uint r, const in uint c, const in float s, const in int past) {
  return int(c) > int(r) + past ? uintBitsToFloat(0xff800000u) : s;
}

float keep_weight(const in uint r, const in uint c, const in float p, const in uint slot, const in uint n) {
  weights[slot][r * BC + n * 16u + c] = float16_t(p);
  return p;
}

// O[r, c0 + c] plus row r's weights times column c0 + c of the last block's values, keys up to the row's query
// only (`past` = q0 - k0), none past seq (`keys` of the block lie inside). `first` is the block's first element.
float add_values(const in uint r, const in uint c, const in float acc, const in uint slot, const in uint first,
                 const in uint keys, const in uint past, const in uint c0) {
  float sum = acc;
  uint n = min(r + past + 1u, keys);
  for (uint j = 0u; j < n; ++j) sum += float(weights[slot][r * BC + j]) * float(v[first + j * D + c0 + c]);
  return sum;
}

// Whether a 16-byte word of halves holds an infinity or NaN (all exponent bits set).
bool any_nonfinite(uvec4 w) {
  uvec4 low = w & 0x7c00u, high = w & 0x7c000000u;
  return any(equal(low, uvec4(0x7c00u))) || any(equal(high, uvec4(0x7c000000u)));
}

void main() {
  const uint seq = dims.seq;
  const uint groups = (seq + Br - 1u) / Br;
  const uint base = gl_WorkGroupID.y * seq * D;  // the head's first element: a multiple of 8 halves
  const uint block_rows = (groups - 1u - gl_WorkGroupID.x) * Br;  // the longest row blocks first

  tensorLayoutNV<2> inside = createTensorLayoutNV(2);
  inside = setTensorLayoutDimensionNV(inside, seq, D);
  inside = setTensorLayoutStrideNV(inside, D, 1);  // rows of 128 or 256 bytes: 16-byte loads
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> clamped =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  clamped = setTensorLayoutDimensionNV(clamped, seq, D);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);

  for (uint slot = gl_SubgroupID; slot < NSG; slot += gl_NumSubgroups) {
    const uint q0 = block_rows + slot * RS;
    if (q0 >= seq) continue;
    const uint rows_end = min(seq, q0 + RS);  // one past the group's last query
    const uint last = (q0 / BC) * BC;         // the block holding the group's queries
    const uint keys = rows_end - last;        // the last block's keys visible to some row

    bool found = false;
    for (uint e = gl_SubgroupInvocationID; e < (rows_end - q0) * (D / 8u); e += gl_SubgroupSize)
      found = found || any_nonfinite(v8[(base + q0 * D) / 8u + e]);
    const bool elementwise = subgroupAny(found);

    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> edge_layout =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    edge_layout = setTensorLayoutDimensionNV(edge_layout, rows_end, D);

    TILE_A qa[DC];
    [[unroll]] for (uint c = 0u; c < DC; ++c) {
      TILE_A part;  // glslang 15.2 crashes on a load into an array's element (an out argument's conversion)
      coopMatLoadTensorNV(part, q, base, sliceTensorLayoutNV(clamped, q0, RS, c * 16u, 16u));
      qa[c] = part;
    }

    TILE acc[DC];
    [[unroll]] for (uint c = 0u; c < DC; ++c) acc[c] = TILE(0.0);
    TILE m = TILE(kLowest), l = TILE(0.0);

    for (uint k0 = 0u; k0 <= last; k0 += BC) {
      const bool edge = k0 == last;

      // 1. Scores, NB matrices of 16 keys.
      TILE s[NB];
      [[unroll]] for (uint n = 0u; n < NB; ++n) {
        s[n] = TILE(0.0);
        [[unroll]] for (uint c = 0u; c < DC; ++c) {
          TILE_B kt;
          if (edge)
            coopMatLoadTensorNV(kt, k, base, sliceTensorLayoutNV(edge_layout, k0 + n * 16u, 16u, c * 16u, 16u),
                                transposed);
          else
            coopMatLoadTensorNV(kt, k, base, sliceTensorLayoutNV(inside, k0 + n * 16u, 16u, c * 16u, 16u),
                                transposed);
          s[n] = coopMatMulAdd(qa[c], kt, s[n]);
        }
        if (edge) coopMatPerElementNV(s[n], s[n], causal, int(q0) - int(k0 + n * 16u));
      }

      // 2. Online softmax inside the subgroup.
      TILE new_max = m;
      [[unroll]] for (uint n = 0u; n < NB; ++n) {
        TILE block_max;
        coopMatReduceNV(block_max, s[n], gl_CooperativeMatrixReduceRowNV, max_of);
        for (int e = 0; e < new_max.length(); ++e) new_max[e] = max(new_max[e], block_max[e]);
      }
      TILE rescale;
      for (int e = 0; e < rescale.length(); ++e) rescale[e] = exp2((m[e] - new_max[e]) * kScale);
      m = new_max;
      TILE sum = TILE(0.0);
      TILE_A pa[NB];
      [[unroll]] for (uint n = 0u; n < NB; ++n) {
        for (int e = 0; e < s[n].length(); ++e) s[n][e] = exp2((s[n][e] - new_max[e]) * kScale);
        TILE block_sum;
        coopMatReduceNV(block_sum, s[n], gl_CooperativeMatrixReduceRowNV, sum_of);
        sum = sum + block_sum;
        pa[n] = TILE_A(s[n]);
      }
      l = l * rescale + sum;

      // 3. Rescale O's rows, add the weights times the values.
      [[unroll]] for (uint c = 0u; c < DC; ++c) acc[c] = acc[c] * rescale;
      if (edge && elementwise) {
        [[unroll]] for (uint n = 0u; n < NB; ++n) coopMatPerElementNV(s[n], s[n], keep_weight, slot, n);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        [[unroll]] for (uint c = 0u; c < DC; ++c)
          coopMatPerElementNV(acc[c], acc[c], add_values, slot, base + k0 * D, keys, q0 - k0, c * 16u);
      } else {
        [[unroll]] for (uint c = 0u; c < DC; ++c) {
          [[unroll]] for (uint n = 0u; n < NB; ++n) {
            TILE_B vb;
            if (edge)
              coopMatLoadTensorNV(vb, v, base, sliceTensorLayoutNV(edge_layout, k0 + n * 16u, 16u, c * 16u, 16u));
            else
              coopMatLoadTensorNV(vb, v, base, sliceTensorLayoutNV(inside, k0 + n * 16u, 16u, c * 16u, 16u));
            acc[c] = coopMatMulAdd(pa[n], vb, acc[c]);
          }
        }
      }
    }

    [[unroll]] for (uint c = 0u; c < DC; ++c) {
      for (int e = 0; e < acc[c].length(); ++e) acc[c][e] = acc[c][e] / l[e];
      coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> result =
          coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(acc[c]);
      coopMatStoreTensorNV(result, o, base, sliceTensorLayoutNV(clamped, q0, RS, c * 16u, 16u));
    }
  }
}
