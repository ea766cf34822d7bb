#version 450
// Impostor: the checked-in kernel, but the head's last workgroup adds the ranges up without rescaling each by
// exp(m_s - M): right where a head has one range (ctx <= 16), wrong wherever the ranges' maxima differ.
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Flash-decoding in one dispatch. Workgroup (s, h) of 64 invocations takes range s of head h's keys: S =
// min(32, ceil(ctx / 16)) ranges of ceil(ctx / S) positions, so that 32 heads after 4096 tokens make 1024
// workgroups, and a short cache few. Each subgroup runs an online softmax over blocks of BLOCK keys (the subgroups
// take every other block), with no barrier:
// - a lane holds 4 dims of q, of a key and of the output row per group of 4 * subgroup size dims, and a key's
//   score is the subgroup's sum of its lanes' dot products;
// - a block's keys and values are all loaded before any is used (each row index clamped into the range), so that
//   a subgroup waits on 2 * BLOCK rows at once, not on each in turn;
// - the running max starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf; a weight below
//   the smallest normal float is 0, as the reference's.
// The subgroups' (max, sum, row) meet in shared memory; the workgroup writes the range's row (not divided by its
// sum), max and sum to `partials`, then counts itself into arrivals[h]. The head's S-th workgroup to arrive reads
// every range back, writes o: sum_s row_s exp(m_s - M) / sum_s l_s exp(m_s - M), M the largest m_s, and zeroes
// the head's scratch again for the next call. A NaN score makes its range's sum NaN, and so the head's row; scores
// all -inf leave every sum 0, and 0 / 0 is NaN.
// kernelgen: dispatch min(32, (ctx + 15) / 16) heads 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint heads; uint ctx; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { f16vec4 q4[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { f16vec4 k4[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { f16vec4 v4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { float16_t o[]; };
layout(set = 0, binding = 4, std430) coherent buffer Partials { float partials[]; };  // [heads][32][130]
layout(set = 0, binding = 5, std430) coherent buffer Arrivals { uint arrivals[]; };   // [heads]

const uint NT = 64u, D = 128u, D4 = 32u, SPLITS = 32u, ROW = 130u, BLOCK = 4u;
// QG: groups of 4 dims a lane holds, enough for subgroups of 8 or more lanes.
const uint QG = 4u;
const float kLowest = -3.4028234663852886e38, kSmallestNormal = 1.1754943508222875e-38;
shared float group_max[NT];
shared float group_sum[NT];
shared float group_row[NT / 8u][D];  // [subgroup][dim], for subgroups of 8 or more
shared bool last_arrival;
shared float weight[SPLITS];
shared float denominator;

void main() {
  const uint s = gl_WorkGroupID.x, h = gl_WorkGroupID.y, i = gl_LocalInvocationIndex;
  const uint H = dims.heads, C = dims.ctx, S = min(SPLITS, (C + 15u) / 16u);
  const uint chunk = (C + S - 1u) / S, first = min(s * chunk, C), last = min(first + chunk, C);
  const uint lanes = gl_SubgroupSize, lane = gl_SubgroupInvocationID, g = gl_SubgroupID, groups = gl_NumSubgroups;
  const float scale = 0.08838834764831845;  // 1 / sqrt(128)
  // Lane's groups c hold dims 4 * (c * lanes + lane) ..; those at 128 or past it hold nothing.
  const uint key_groups = (D4 + lanes - 1u) / lanes;
  vec4 qv[QG];
  [[unroll]] for (uint c = 0u; c < QG; ++c) {
    const uint d4 = c * lanes + lane;
    qv[c] = c < key_groups && d4 < D4 ? vec4(q4[h * D4 + d4]) : vec4(0.0);
  }
  float m = kLowest, l = 0.0;
  bool nan = false;
  vec4 acc[QG];
  [[unroll]] for (uint c = 0u; c < QG; ++c) acc[c] = vec4(0.0);
  for (uint j0 = first + g * BLOCK; j0 < last; j0 += groups * BLOCK) {
    f16vec4 key4[BLOCK][QG], value4[BLOCK][QG];
    [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
      const uint row4 = (min(j0 + u, last - 1u) * H + h) * D4;
      [[unroll]] for (uint c = 0u; c < QG; ++c)
        if (c < key_groups) {
          const uint d4 = min(c * lanes + lane, D4 - 1u);
          key4[u][c] = k4[row4 + d4];
          value4[u][c] = v4[row4 + d4];
        }
    }
    float score[BLOCK];
    float block_max = uintBitsToFloat(0xff800000u);
    [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
      float dot_part = 0.0;
      [[unroll]] for (uint c = 0u; c < QG; ++c)
        if (c < key_groups) dot_part += dot(qv[c], vec4(key4[u][c]));
      score[u] = j0 + u < last ? subgroupAdd(dot_part) * scale : uintBitsToFloat(0xff800000u);
      nan = nan || isnan(score[u]);
      block_max = max(block_max, score[u]);
    }
    const float new_max = max(m, block_max), f = exp(m - new_max);
    l *= f;
    [[unroll]] for (uint c = 0u; c < QG; ++c) acc[c] *= f;
    [[unroll]] for (uint u = 0u; u < BLOCK; ++u) {
      if (j0 + u >= last) break;  // a block's keys past the range (their rows repeat its last: 0 * inf is NaN)
      float w = exp(score[u] - new_max);
      w = w < kSmallestNormal ? 0.0 : w;
      l += w;
      [[unroll]] for (uint c = 0u; c < QG; ++c)
        if (c < key_groups && c * lanes + lane < D4) acc[c] += w * vec4(value4[u][c]);
    }
    m = new_max;
  }
  if (lane == 0u) {
    group_max[g] = m;
    group_sum[g] = nan ? uintBitsToFloat(0x7fc00000u) : l;
  }
  [[unroll]] for (uint c = 0u; c < QG; ++c) {
    const uint d4 = c * lanes + lane;
    if (c < key_groups && d4 < D4)
      [[unroll]] for (uint e = 0u; e < 4u; ++e) group_row[g][4u * d4 + e] = acc[c][e];
  }
  barrier();
  // The range's max, sum and row over its subgroups, each rescaled to the largest max.
  float range_max = kLowest;
  for (uint x = 0u; x < groups; ++x) range_max = max(range_max, group_max[x]);
  const uint at = (h * SPLITS + s) * ROW;
  for (uint d = i; d < D; d += NT) {
    float row = 0.0;
    for (uint x = 0u; x < groups; ++x) row += group_row[x][d] * exp(group_max[x] - range_max);
    partials[at + d] = row;
  }
  if (i == 0u) {
    float sum = 0.0;
    for (uint x = 0u; x < groups; ++x) sum += group_sum[x] * exp(group_max[x] - range_max);
    partials[at + D] = range_max;
    partials[at + D + 1u] = sum;
  }
  // Every write of the range before its arrival is counted; the last to arrive sees them all.
  memoryBarrierBuffer();
  barrier();
  if (i == 0u) last_arrival = atomicAdd(arrivals[h], 1u) == S - 1u;
  barrier();
  if (!last_arrival) return;
  memoryBarrierBuffer();
  if (i < S) weight[i] = partials[(h * SPLITS + i) * ROW + D];  // each range's max, for now
  barrier();
  if (i == 0u) {
    float top = kLowest;
    for (uint x = 0u; x < S; ++x) top = max(top, weight[x]);
    float sum = 0.0;
    for (uint x = 0u; x < S; ++x) {
      float w = 1.0;  // not rescaled to the largest max
      weight[x] = w;
      sum += w * partials[(h * SPLITS + x) * ROW + D + 1u];
    }
    denominator = sum;
  }
  barrier();
  for (uint d = i; d < D; d += NT) {
    float total = 0.0;
    for (uint x = 0u; x < S; ++x) total += weight[x] * partials[(h * SPLITS + x) * ROW + d];
    o[h * D + d] = float16_t(total / denominator);
  }
  // The next call must find the scratch as this one did: every range's row, max and sum, and the count, zero.
  barrier();
  for (uint e = i; e < S * ROW; e += NT) partials[h * SPLITS * ROW + e] = 0.0;
  if (i == 0u) arrivals[h] = 0u;
}
