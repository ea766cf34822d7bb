#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Flash-decoding in one dispatch, a range's keys taken a tile at a time. Workgroup (s, h) of NT invocations takes
// range s of head h's keys: S = min(MAX_RANGES, ceil(ctx / MIN_KEYS)) ranges of ceil(ctx / S) positions. The
// range goes by tiles of TILE = (NT / 16) * KPI keys. Invocation t holds dims 8 (t % 16) .. + 8 of every key
// KPI keys apart from t / 16 in the tile, and issues the loads of all its KPI keys (16 bytes each) before it uses
// any, so that a workgroup waits on one memory latency for a tile's keys, and, the values' loads issued before
// the scores are added up, about one more for its values:
// - each invocation's 8-dim parts of its keys' dot products meet in shared memory, where invocation j adds up
//   key j's 16 parts in a fixed order;
// - the tile's max and sum come from subgroupMax and subgroupAdd, then across subgroups through shared memory;
// - the running max starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf; a weight below
//   the smallest normal float is 0, as the reference's; keys past the range load as zeros and weigh 0.
// At the end each invocation's 8 dims of the output row meet, per key group, in shared memory; the workgroup
// writes the range's row (not divided by its sum), max and sum to `partials`, then counts itself into
// arrivals[h]. The head's S-th workgroup to arrive reads every range back, writes o: sum_s row_s exp(m_s - M) /
// sum_s l_s exp(m_s - M), M the largest m_s, and zeroes the head's scratch again for the next call. A NaN score
// makes its range's sum NaN, and so the head's row; scores all -inf leave every sum 0, and 0 / 0 is NaN.
// kernelgen: dispatch min(@MAX_RANGES@, (ctx + @MIN_KEYS@ - 1) / @MIN_KEYS@) heads 1
layout(local_size_x = @NT@) in;
layout(push_constant) uniform Dims { uint heads; uint ctx; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { uvec4 q8[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { uvec4 k8[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { float16_t o[]; };
layout(set = 0, binding = 4, std430) coherent buffer Partials { float partials[]; };  // [heads][STRIDE][130]
layout(set = 0, binding = 5, std430) coherent buffer Arrivals { uint arrivals[]; };   // [heads]

const uint NT = @NT@u, KPI = @KPI@u, GROUPS = NT / 16u, TILE = GROUPS * KPI;
const uint D = 128u, D8 = 16u, MAX_RANGES = @MAX_RANGES@u, MIN_KEYS = @MIN_KEYS@u, STRIDE = @STRIDE@u, ROW = 130u;
const float kLowest = -3.4028234663852886e38, kSmallestNormal = 1.1754943508222875e-38;
shared float part[TILE][D8 + 1u];  // [key of the tile][dim group], a float of skew a row
shared float weight_of[TILE];
shared float group_max[NT], group_sum[NT];  // [subgroup], for subgroups of 1 or more
shared vec4 row_part[GROUPS][2u * D8];      // [key group][dims / 4]
shared bool last_arrival;
shared float weight[MAX_RANGES];

vec4 low4(uvec4 p) { return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y)); }
vec4 high4(uvec4 p) { return vec4(unpackHalf2x16(p.z), unpackHalf2x16(p.w)); }

void main() {
  const uint s = gl_WorkGroupID.x, h = gl_WorkGroupID.y, t = gl_LocalInvocationIndex;
  const uint H = dims.heads, C = dims.ctx, S = min(MAX_RANGES, (C + MIN_KEYS - 1u) / MIN_KEYS);
  const uint chunk = (C + S - 1u) / S, first = min(s * chunk, C), last = min(first + chunk, C);
  const uint d8 = t % D8, kg = t / D8, sg = gl_SubgroupID, subgroups = gl_NumSubgroups;
  const float scale = 0.08838834764831845;  // 1 / sqrt(128)
  const uvec4 qp = q8[h * D8 + d8];
  const vec4 q_low = low4(qp), q_high = high4(qp);
  float m = kLowest, l = 0.0;
  vec4 acc_low = vec4(0.0), acc_high = vec4(0.0);
  for (uint tile0 = first; tile0 < last; tile0 += TILE) {
    uvec4 key[KPI];
    [[unroll]] for (uint j = 0u; j < KPI; ++j) {
      const uint pos = tile0 + kg + j * GROUPS;
      key[j] = pos < last ? k8[(pos * H + h) * D8 + d8] : uvec4(0u);
    }
    [[unroll]] for (uint j = 0u; j < KPI; ++j)
      part[kg + j * GROUPS][d8] = dot(q_low, low4(key[j])) + dot(q_high, high4(key[j]));
    uvec4 value[KPI];
    [[unroll]] for (uint j = 0u; j < KPI; ++j) {
      const uint pos = tile0 + kg + j * GROUPS;
      value[j] = pos < last ? v8[(pos * H + h) * D8 + d8] : uvec4(0u);
    }
    barrier();
    // Invocation t < TILE (KPI <= 16): key t's score.
    float score = uintBitsToFloat(0xff800000u);
    if (t < TILE && tile0 + t < last) {
      float dot_sum = 0.0;
      [[unroll]] for (uint c = 0u; c < D8; ++c) dot_sum += part[t][c];
      score = dot_sum * scale;
    }
    const float tile_max_sg = subgroupMax(score);
    if (subgroupElect()) group_max[sg] = tile_max_sg;
    barrier();
    float tile_max = uintBitsToFloat(0xff800000u);
    for (uint x = 0u; x < subgroups; ++x) tile_max = max(tile_max, group_max[x]);
    const float new_max = max(m, tile_max), f = exp(m - new_max);
    float w = exp(score - new_max);
    w = w < kSmallestNormal ? 0.0 : w;
    if (t < TILE) weight_of[t] = w;
    const float sum_sg = subgroupAdd(t < TILE ? w : 0.0);
    if (subgroupElect()) group_sum[sg] = sum_sg;
    barrier();
    float tile_sum = 0.0;
    for (uint x = 0u; x < subgroups; ++x) tile_sum += group_sum[x];
    l = l * f + tile_sum;
    acc_low *= f;
    acc_high *= f;
    [[unroll]] for (uint j = 0u; j < KPI; ++j) {
      const float wj = weight_of[kg + j * GROUPS];
      acc_low += wj * low4(value[j]);
      acc_high += wj * high4(value[j]);
    }
    m = new_max;
    barrier();  // group_max, group_sum and weight_of are written again by the next tile
  }
  // A NaN score made its weight, and so the tile's sum, NaN: l carries it.
  row_part[kg][2u * d8] = acc_low;
  row_part[kg][2u * d8 + 1u] = acc_high;
  barrier();
  const uint at = (h * STRIDE + s) * ROW;
  for (uint d4 = t; d4 < 2u * D8; d4 += NT) {
    vec4 row = vec4(0.0);
    for (uint x = 0u; x < GROUPS; ++x) row += row_part[x][d4];
    [[unroll]] for (uint e = 0u; e < 4u; ++e) partials[at + 4u * d4 + e] = row[e];
  }
  if (t == 0u) {
    partials[at + D] = m;
    partials[at + D + 1u] = l;
  }
  // Every write of the range before its arrival is counted; the last to arrive sees them all.
  memoryBarrierBuffer();
  barrier();
  if (t == 0u) last_arrival = atomicAdd(arrivals[h], 1u) == S - 1u;
  barrier();
  if (!last_arrival) return;
  memoryBarrierBuffer();
  // The combine, every load issued before any is used: invocation x < S takes range x's max and sum, and the
  // weights exp(m_x - M) and the denominator come from subgroup and shared-memory reductions; then each output dim
  // loads its MAX_RANGES rows at once (those past S not loaded).
  float mx = kLowest, lx = 0.0;
  if (t < S) {
    mx = partials[(h * STRIDE + t) * ROW + D];
    lx = partials[(h * STRIDE + t) * ROW + D + 1u];
  }
  const float max_sg = subgroupMax(mx);
  if (subgroupElect()) group_max[sg] = max_sg;
  barrier();
  float top = kLowest;
  for (uint x = 0u; x < subgroups; ++x) top = max(top, group_max[x]);
  float wx = t < S ? exp(mx - top) : 0.0;
  wx = wx < kSmallestNormal ? 0.0 : wx;
  if (t < S) weight[t] = wx;
  const float sum_sg = subgroupAdd(wx * lx);
  if (subgroupElect()) group_sum[sg] = sum_sg;
  barrier();
  float denominator = 0.0;
  for (uint x = 0u; x < subgroups; ++x) denominator += group_sum[x];
  for (uint d = t; d < D; d += NT) {
    float rows[MAX_RANGES];
    [[unroll]] for (uint x = 0u; x < MAX_RANGES; ++x) rows[x] = x < S ? partials[(h * STRIDE + x) * ROW + d] : 0.0;
    float total = 0.0;
    [[unroll]] for (uint x = 0u; x < MAX_RANGES; ++x) total += x < S ? weight[x] * rows[x] : 0.0;
    o[h * D + d] = float16_t(total / denominator);
  }
  // The next call must find the scratch as this one did: every range's row, max and sum, and the count, zero.
  barrier();
  for (uint e = t; e < S * ROW; e += NT) partials[(h * STRIDE) * ROW + e] = 0.0;
  if (t == 0u) arrivals[h] = 0u;
}
