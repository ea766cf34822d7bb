#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// attention_f16 (heads x seq x HEAD_DIM, causal), flash-attention 2 style: each subgroup owns 16 query rows and
// keeps their state in subgroup-scope 16 x 16 matrices (a row's max and sum reduced inside the subgroup), while
// the workgroup stages each block of keys and values in shared memory once for all its subgroups. Where
// attention_f16_cm2_rows.comp loaded every 16 x 16 key and value tile of a block from the buffers in each
// subgroup (four times the loads of the workgroup-scope kernel, three times slower), here the invocations copy a
// block's BC rows of keys and values with 16-byte loads into shared rows padded by 16 bytes (no two rows of a tile
// on one bank), and the subgroups read their B operands from there. Measured on an H200, it ran no faster than the
// workgroup-scope kernel at heads of 128 and slower at 64 (benchmarks/RESULTS.md, "attention_f16 with keys and
// values staged in shared memory"): kept as the record of that sweep, not as a variant.
// Choices, for benchmarks/gpu/attention_cm2_sweep.py to set:
//   HEAD_DIM  128 (attention_f16) or 64 (attention_f16_d64);
//   NSG  row groups of 16 a workgroup, one a subgroup of 32 (a device with fewer subgroups loops);
//   BC  keys per block, a multiple of 16.
// Per block, each subgroup whose rows see some of its keys: S = q k^T as BC / 16 tiles of 16 x 16 (f32); the
// running max m, the weights p = exp2((s - m) * log2(e) / sqrt(D)) and the running sum l, each 16 x 16 matrices
// holding a row's value in every column (a row reduction smears it), so they combine with S's and O's tiles
// element by element (matrices of one type share their element layout); then O = O * exp2((m_old - m) * ...) + p v.
// The block holding the subgroup's first query q0 (its last block, `edge`): tiles of keys before q0 are whole,
// the tile of keys q0 .. q0 + 15 masks each key past its query to -inf, and the tiles after it are skipped (no row
// of the subgroup sees them). A key of the masked tile past a row's query has weight 0, and on tensor cores 0 times
// an infinite or NaN value is NaN, which the reference (leaving such keys out) does not have; so each subgroup first
// checks the value rows of its own 16 keys and, where one holds an infinity or NaN, adds that tile element by
// element, each row only its keys up to its query, with the same f16 weights kept in shared memory.
#define HEAD_DIM 128
#define NSG 4
#define BC 64
// kernelgen: dispatch (seq + 63) / 64 heads 1
layout(local_size_x = 32 * NSG) in;
layout(push_constant) uniform Dims { uint heads; uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 1, std430) readonly buffer K8 { uvec4 k8[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 2, std430) readonly buffer V8 { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) buffer O { float16_t o[]; };

const uint D = HEAD_DIM;
const uint DC = D / 16u;   // O's 16-column tiles
const uint NB = BC / 16u;  // a block's 16-key tiles
const uint RS = 16u;       // rows a subgroup owns
const uint Br = RS * NSG;  // rows a workgroup owns
const uint W = D / 8u;     // 16-byte words a row
const uint SW = W + 1u;    // 16-byte words a shared row: one of padding
const float kScale = 1.4426950408889634 / sqrt(float(D));  // log2(e) / sqrt(D)
const float kLowest = -3.4028234663852886e38;

#define TILE coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define TILE_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define TILE_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

shared uvec4 keys_block[BC * SW];
shared uvec4 values_block[BC * SW];
shared float16_t weights[NSG][RS * 16u];  // a group's masked-tile f16 weights, where it adds that tile by element

float max_of(const in float a, const in float b) { return max(a, b); }
float sum_of(const in float a, const in float b) { return a + b; }

// Key q0 + c lies past query q0 + r when c > r.
float causal(const in uint r, const in uint c, const in float s) { return c > r ? uintBitsToFloat(0xff800000u) : s; }

float keep_weight(const in uint r, const in uint c, const in float p, const in uint slot) {
  weights[slot][r * 16u + c] = float16_t(p);
  return p;
}

// O[r, c0 + c] plus row r's weights times column c0 + c of the values of keys q0 .. q0 + r (none past seq:
// `keys` of the tile lie inside). `first` is key q0's first element.
float add_values(const in uint r, const in uint c, const in float acc, const in uint slot, const in uint first,
                 const in uint keys, const in uint c0) {
  float sum = acc;
  uint n = min(r + 1u, keys);
  for (uint j = 0u; j < n; ++j) sum += float(weights[slot][r * 16u + j]) * float(v[first + j * D + c0 + c]);
  return sum;
}

// Whether a 16-byte word of halves holds an infinity or NaN (all exponent bits set).
bool any_nonfinite(uvec4 w) {
  uvec4 low = w & 0x7c00u, high = w & 0x7c000000u;
  return any(equal(low, uvec4(0x7c00u))) || any(equal(high, uvec4(0x7c000000u)));
}

void main() {
  const uint seq = dims.seq, t = gl_LocalInvocationID.x;
  const uint groups = (seq + Br - 1u) / Br;
  const uint base = gl_WorkGroupID.y * seq * D;  // the head's first element: a multiple of 8 halves
  const uint block_rows = (groups - 1u - gl_WorkGroupID.x) * Br;  // the longest row blocks first
  const uint wg_last = (min(seq - 1u, block_rows + Br - 1u) / BC) * BC;  // the workgroup's last block

  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> clamped =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  clamped = setTensorLayoutDimensionNV(clamped, seq, D);

  // This subgroup's rows (a device with fewer subgroups than NSG is not served by this kernel's dispatch line).
  const uint slot = gl_SubgroupID;
  const uint q0 = block_rows + slot * RS;
  const bool live = slot < NSG && q0 < seq;
  const uint last = (q0 / BC) * BC;                     // the block holding the group's first query
  const uint diagonal = (q0 - last) / 16u;              // its tile of keys q0 .. q0 + 15
  const uint tile_keys = live ? min(16u, seq - q0) : 0u;  // of them inside seq

  bool found = false;
  for (uint e = gl_SubgroupInvocationID; e < tile_keys * W; e += gl_SubgroupSize)
    found = found || any_nonfinite(v8[(base + q0 * D) / 8u + e]);
  const bool elementwise = subgroupAny(found);

  TILE_A qa[DC];
  [[unroll]] for (uint c = 0u; c < DC; ++c) {
    TILE_A part;  // glslang 15.2 crashes on a load into an array's element (an out argument's conversion)
    coopMatLoadTensorNV(part, q, base, sliceTensorLayoutNV(clamped, q0, RS, c * 16u, 16u));
    qa[c] = part;
  }

  TILE acc[DC];
  [[unroll]] for (uint c = 0u; c < DC; ++c) acc[c] = TILE(0.0);
  TILE m = TILE(kLowest), l = TILE(0.0);

  for (uint k0 = 0u; k0 <= wg_last; k0 += BC) {
    // The block's keys and values into shared memory, rows past seq as zeros.
    barrier();
    for (uint e = t; e < BC * W; e += 32u * NSG) {
      const uint row = e / W, word = e - row * W;
      uvec4 key = uvec4(0u), value = uvec4(0u);
      if (k0 + row < seq) {
        const uint at = (base + (k0 + row) * D) / 8u + word;
        key = k8[at];
        value = v8[at];
      }
      keys_block[row * SW + word] = key;
      values_block[row * SW + word] = value;
    }
    barrier();
    if (!live || k0 > last) continue;
    const bool edge = k0 == last;

    // 1. Scores, NB tiles of 16 keys; on the edge, none past the diagonal tile.
    TILE s[NB];
    [[unroll]] for (uint n = 0u; n < NB; ++n) {
      s[n] = TILE(0.0);
      if (edge && n > diagonal) continue;
      [[unroll]] for (uint c = 0u; c < DC; ++c) {
        TILE_B kt;
        coopMatLoad(kt, keys_block, n * 16u * SW + c * 2u, SW, gl_CooperativeMatrixLayoutColumnMajor);
        s[n] = coopMatMulAdd(qa[c], kt, s[n]);
      }
      if (edge && n == diagonal) coopMatPerElementNV(s[n], s[n], causal);
    }

    // 2. Online softmax inside the subgroup.
    TILE new_max = m;
    [[unroll]] for (uint n = 0u; n < NB; ++n) {
      if (edge && n > diagonal) continue;
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
      if (edge && n > diagonal) continue;
      for (int e = 0; e < s[n].length(); ++e) s[n][e] = exp2((s[n][e] - new_max[e]) * kScale);
      TILE block_sum;
      coopMatReduceNV(block_sum, s[n], gl_CooperativeMatrixReduceRowNV, sum_of);
      sum = sum + block_sum;
      pa[n] = TILE_A(s[n]);
    }
    l = l * rescale + sum;

    // 3. Rescale O's rows, add the weights times the values.
    [[unroll]] for (uint c = 0u; c < DC; ++c) acc[c] = acc[c] * rescale;
    [[unroll]] for (uint n = 0u; n < NB; ++n) {
      if (edge && n > diagonal) continue;
      if (edge && n == diagonal && elementwise) {
        coopMatPerElementNV(s[n], s[n], keep_weight, slot);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        [[unroll]] for (uint c = 0u; c < DC; ++c)
          coopMatPerElementNV(acc[c], acc[c], add_values, slot, base + q0 * D, tile_keys, c * 16u);
        continue;
      }
      [[unroll]] for (uint c = 0u; c < DC; ++c) {
        TILE_B vb;
        coopMatLoad(vb, values_block, n * 16u * SW + c * 2u, SW, gl_CooperativeMatrixLayoutRowMajor);
        acc[c] = coopMatMulAdd(pa[n], vb, acc[c]);
      }
    }
  }

  if (!live) return;
  [[unroll]] for (uint c = 0u; c < DC; ++c) {
    for (int e = 0; e < acc[c].length(); ++e) acc[c][e] = acc[c][e] / l[e];
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> result =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(acc[c]);
    coopMatStoreTensorNV(result, o, base, sliceTensorLayoutNV(clamped, q0, RS, c * 16u, 16u));
  }
}
