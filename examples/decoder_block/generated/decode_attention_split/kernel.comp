#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Flash-decoding's first pass (ops/decode_attention_split/reference.cpp states the op), hand-written. A workgroup of
// 64 invocations takes one split s of one head, so that a decode step's one query per head still fills the GPU. Each subgroup runs its own online softmax, with no barrier, over blocks of 4 keys (the workgroup's
// subgroups take every other block):
// - a lane holds 4 dims of q, a key and the output row per group of 4 * subgroup size dims (a key row of head_dim
//   128 is one 8-byte load per lane of 32, side by side), keeps its dims of q in registers, and a key's score is the
//   subgroup's sum of its lanes' dot products;
// - a block's 4 keys and values are loaded before any is used (raw, each index clamped into the row, the lanes
//   past head_dim masked when they are used), so that a subgroup waits on 8 rows at once, not on each in turn;
//   rows of head_dim not a multiple of 4 or above 16 * subgroup size go element by element;
// - the running max m starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf; a weight
//   exp(score - m) below the smallest normal float is 0, as the reference's.
// Then the subgroups' (m, sum, row) meet in shared memory, each rescaled by exp(m - max m). A split whose scores
// were all -inf (its sum 0) or that met a NaN gets NaN, as the reference; lse = max + log(sum). Heads wider than
// 8 * subgroup size dims go round again for each such group of dims (their scores computed anew).
// kernelgen: dispatch splits heads 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint heads; uint head_dim; uint ctx; uint splits; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float q[]; };
layout(set = 0, binding = 0, std430) readonly buffer Q4 { vec4 q4[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 1, std430) readonly buffer K4 { f16vec4 k4[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 2, std430) readonly buffer V4 { f16vec4 v4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Partial { float partial[]; };
layout(set = 0, binding = 4, std430) writeonly buffer Lse { float lse[]; };

// R: groups of 4 dims of the output row a lane holds per round; QG: groups of 4 dims of q it keeps
const uint NT = 64u, R = 2u, QG = 4u, BLOCK = 4u;
const float kLowest = -3.4028234663852886e38, kSmallestNormal = 1.1754943508222875e-38;
#define NEG_INF uintBitsToFloat(0xff800000u)
#define NAN uintBitsToFloat(0x7fc00000u)
shared float group_max[NT];
shared float group_sum[NT];
shared float group_row[NT * 4u * R];  // [subgroup][the round's dims]

// Four consecutive elements from `row` + d (zeros past head_dim): one wide load where rows are whole groups of 4.
vec4 q_at(uint row, uint d) {
  const uint D = dims.head_dim;
  if ((D & 3u) == 0u) return d < D ? q4[(row + d) / 4u] : vec4(0.0);
  vec4 x = vec4(0.0);
  [[unroll]] for (uint e = 0u; e < 4u; ++e) if (d + e < D) x[e] = q[row + d + e];
  return x;
}
vec4 k_at(uint row, uint d) {
  const uint D = dims.head_dim;
  if ((D & 3u) == 0u) return d < D ? vec4(k4[(row + d) / 4u]) : vec4(0.0);
  vec4 x = vec4(0.0);
  [[unroll]] for (uint e = 0u; e < 4u; ++e) if (d + e < D) x[e] = float(k[row + d + e]);
  return x;
}
vec4 v_at(uint row, uint d) {
  const uint D = dims.head_dim;
  if ((D & 3u) == 0u) return d < D ? vec4(v4[(row + d) / 4u]) : vec4(0.0);
  vec4 x = vec4(0.0);
  [[unroll]] for (uint e = 0u; e < 4u; ++e) if (d + e < D) x[e] = float(v[row + d + e]);
  return x;
}

void main() {
  const uint s = gl_WorkGroupID.x, h = gl_WorkGroupID.y, i = gl_LocalInvocationIndex;
  const uint H = dims.heads, D = dims.head_dim, C = dims.ctx, S = dims.splits;
  const uint chunk = (C + S - 1u) / S, first = s * chunk, last = min(first + chunk, C);
  const uint out_row = (h * S + s) * D, q_row = h * D;
  if (first >= last) {  // no key in this split (more splits than positions)
    for (uint d = i; d < D; d += NT) partial[out_row + d] = 0.0;
    if (i == 0u) lse[h * S + s] = NEG_INF;
    return;
  }
  const float scale = 1.0 / sqrt(float(D));
  const uint lanes = gl_SubgroupSize, lane = gl_SubgroupInvocationID, g = gl_SubgroupID, groups = gl_NumSubgroups;
  const uint round_dims = 4u * lanes * R;
  vec4 qv[QG];  // the lane's first QG groups of q (all of it where head_dim <= 16 * subgroup size)
  [[unroll]] for (uint c = 0u; c < QG; ++c) qv[c] = q_at(q_row, 4u * (c * lanes + lane));
  // The wide path: rows of whole groups of 4 that the lanes' QG groups cover; key_groups of them hold dims.
  const bool wide = (D & 3u) == 0u && D <= 4u * lanes * QG;
  const uint key_groups = (D + 4u * lanes - 1u) / (4u * lanes);
  float total_max = kLowest, total = 0.0;
  for (uint d0 = 0u; d0 < D; d0 += round_dims) {
    float m = kLowest, l = 0.0;
    bool nan = false;
    vec4 acc[R];
    [[unroll]] for (uint r = 0u; r < R; ++r) acc[r] = vec4(0.0);
    for (uint j0 = first + g * BLOCK; j0 < last; j0 += groups * BLOCK) {
      float score[BLOCK];
      vec4 value[BLOCK][R];
      if (wide) {
        // Every load of the block first, raw, and then their uses: a load used at once would make the subgroup
        // wait out each key's memory latency in turn.
        f16vec4 key4[BLOCK][QG], value4[BLOCK][R];
        [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
          const uint row4 = ((min(j0 + u, last - 1u) * H + h) * D) / 4u;
          [[unroll]] for (uint c = 0u; c < QG; ++c)
            if (c < key_groups) key4[u][c] = k4[row4 + min(c * lanes + lane, D / 4u - 1u)];
          [[unroll]] for (uint r = 0u; r < R; ++r)
            if (d0 + 4u * r * lanes < D) value4[u][r] = v4[row4 + min(d0 / 4u + r * lanes + lane, D / 4u - 1u)];
        }
        [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
          float dot_part = 0.0;
          [[unroll]] for (uint c = 0u; c < QG; ++c)
            if (c < key_groups && 4u * (c * lanes + lane) < D) dot_part += dot(qv[c], vec4(key4[u][c]));
          score[u] = dot_part;
          [[unroll]] for (uint r = 0u; r < R; ++r)
            value[u][r] = d0 + 4u * (r * lanes + lane) < D ? vec4(value4[u][r]) : vec4(0.0);
        }
      } else {
        [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
          const uint j = min(j0 + u, last - 1u), row = (j * H + h) * D;
          float dot_part = 0.0;
          [[unroll]] for (uint c = 0u; c < QG; ++c) dot_part += dot(qv[c], k_at(row, 4u * (c * lanes + lane)));
          for (uint d = 4u * (QG * lanes + lane); d < D; d += 4u * lanes) dot_part += dot(q_at(q_row, d), k_at(row, d));
          [[unroll]] for (uint r = 0u; r < R; ++r) value[u][r] = v_at(row, d0 + 4u * (r * lanes + lane));
          score[u] = dot_part;
        }
      }
      float block_max = NEG_INF;
      [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
        score[u] = j0 + u < last ? subgroupAdd(score[u]) * scale : NEG_INF;
        nan = nan || isnan(score[u]);
        block_max = max(block_max, score[u]);
      }
      const float new_max = max(m, block_max), f = exp(m - new_max);
      l *= f;
      [[unroll]] for (uint r = 0u; r < R; ++r) acc[r] *= f;
      [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
        if (j0 + u >= last) break;  // a block's keys past the split's (their rows repeat its last: 0 * inf is NaN)
        float w = exp(score[u] - new_max);
        w = w < kSmallestNormal ? 0.0 : w;
        l += w;
        [[unroll]] for (uint r = 0u; r < R; ++r) acc[r] += w * value[u][r];
      }
      m = new_max;
    }
    if (lane == 0u) {
      group_max[g] = m;
      group_sum[g] = nan ? NAN : l;
    }
    [[unroll]] for (uint r = 0u; r < R; ++r)
      [[unroll]] for (uint e = 0u; e < 4u; ++e) group_row[g * round_dims + 4u * (r * lanes + lane) + e] = acc[r][e];
    barrier();
    total_max = kLowest;
    for (uint x = 0u; x < groups; ++x) total_max = max(total_max, group_max[x]);
    total = 0.0;
    for (uint x = 0u; x < groups; ++x) total += group_sum[x] * exp(group_max[x] - total_max);
    const bool undefined = isnan(total) || total == 0.0;
    for (uint e = i; e < round_dims && d0 + e < D; e += NT) {
      float sum = 0.0;
      for (uint x = 0u; x < groups; ++x) sum += group_row[x * round_dims + e] * exp(group_max[x] - total_max);
      partial[out_row + d0 + e] = undefined ? NAN : sum / total;
    }
    barrier();  // everyone has read the shared rows before the next round writes them
  }
  if (i == 0u) lse[h * S + s] = (isnan(total) || total == 0.0) ? NAN : total_max + log(total);
}
