#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
// examples/decoder_block's decode attention at heads of 128 (the catalog's decode_attention_f16 op, with this
// kernel): benchmarks/gpu/decode/decode_attention_f16_stream.comp at 256 invocations, blocks of 2 keys, at most
// 12 ranges a head of at least 128 keys, pipelined (benchmarks/gpu/decode_sweep.py's da_stream_t256_b2_s12_p1),
// with q's loads issued beside the first block's and the combine's loads at once, hand-written. On an H200 in the
// block after 4096 tokens (benchmarks/RESULTS.md): 26.4-26.5 us, against 29.5-29.7 for the 128 / 2 / 16 kernel
// before it; the catalog's own kernel is the one its search picked on lavapipe. At least 128 keys a range, not
// 16, changes nothing from 1409 keys up (12 ranges either way) and spares lavapipe's validation most of its
// workgroups at small ctx.
// Flash-decoding in one dispatch, each range's keys streamed by clusters of lanes with no barrier until the range
// is done. Workgroup (s, h) of NT invocations takes range s of head h's keys: S = min(MAX_RANGES, ceil(ctx /
// MIN_KEYS)) ranges of ceil(ctx / S) positions.
// - A cluster is L = min(16, subgroup size) lanes of one subgroup; a key row (128 f16, 256 bytes) is 16 loads of
//   16 bytes, so each lane of a cluster loads 16 / L of them (1 on a GPU of 32-lane subgroups, 2 at 8 lanes:
//   subgroups of 8 or more). Lane i of the cluster holds dims 8 (g L + i) .. + 8, g < 16 / L, of q, of each key,
//   of each value and of its output row.
// - Each cluster runs its own online softmax over blocks of B consecutive keys (the workgroup's clusters take
//   the range's blocks in turn): a key's score is its lanes' dot products added up by shuffles within the
//   cluster (every lane gets the same sum: a butterfly adds the same pairs in each lane), the running max m
//   starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf, and a weight below the smallest
//   normal float is 0, as the reference's. Keys past the range load as the range's last and are skipped.
// - The next block's keys and values are loaded before this block's are used, so that a lane always has two
//   blocks' loads in flight.
// Then the clusters of a subgroup merge by shuffles, the subgroups through shared memory, each (max, sum, row)
// rescaled by exp(m - max m); the workgroup writes the range's row (not divided by its sum), max and sum to
// `partials`, then counts itself into arrivals[h]. The head's S-th workgroup to arrive reads every range back and
// writes o: sum_s row_s exp(m_s - M) / sum_s l_s exp(m_s - M), M the largest m_s, and zeroes the head's scratch
// for the next call. A NaN score makes its range's sum NaN, and so the head's row; scores all -inf leave every
// sum 0, and 0 / 0 is NaN.
// kernelgen: dispatch min(12, (ctx + 128 - 1) / 128) heads 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint heads; uint ctx; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { uvec4 q8[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { uvec4 k8[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { uvec4 v8[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { float16_t o[]; };
layout(set = 0, binding = 4, std430) coherent buffer Partials { float partials[]; };  // [heads][STRIDE][130]
layout(set = 0, binding = 5, std430) coherent buffer Arrivals { uint arrivals[]; };   // [heads]

const uint NT = 256u, B = 2u, MAX_RANGES = 12u, MIN_KEYS = 128u, STRIDE = 32u;
const uint D = 128u, D8 = 16u, ROW = 130u, MAXG = 2u;  // MAXG: 16-byte groups of a row a lane holds at most
const float kLowest = -3.4028234663852886e38, kSmallestNormal = 1.1754943508222875e-38;
#define NEG_INF uintBitsToFloat(0xff800000u)
shared float sg_max[NT / 8u], sg_sum[NT / 8u];  // [subgroup], for subgroups of 8 or more
shared float sg_row[NT / 8u][D];
shared bool last_arrival;
shared float weight[MAX_RANGES];
shared float group_max[NT], group_sum[NT];

vec4 low4(uvec4 p) { return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y)); }
vec4 high4(uvec4 p) { return vec4(unpackHalf2x16(p.z), unpackHalf2x16(p.w)); }

void main() {
  const uint s = gl_WorkGroupID.x, h = gl_WorkGroupID.y, t = gl_LocalInvocationIndex;
  const uint H = dims.heads, C = dims.ctx, S = min(MAX_RANGES, (C + MIN_KEYS - 1u) / MIN_KEYS);
  const uint chunk = (C + S - 1u) / S, first = min(s * chunk, C), last = min(first + chunk, C);
  const uint lanes = gl_SubgroupSize, lane = gl_SubgroupInvocationID, sg = gl_SubgroupID;
  const uint L = min(16u, lanes), G = D8 / L, li = lane % L;
  const uint clusters = gl_NumSubgroups * (lanes / L), cluster = sg * (lanes / L) + lane / L;
  const float scale = 0.08838834764831845;  // 1 / sqrt(128)
  // q's loads and the first block's are issued before either is used: one trip to memory before the loop, not two.
  uvec4 q_raw[MAXG];
  [[unroll]] for (uint g = 0u; g < MAXG; ++g) q_raw[g] = g < G ? q8[h * D8 + g * L + li] : uvec4(0u);
  uvec4 key[B][MAXG], value[B][MAXG];
#define LOAD_BLOCK(K_, V_, J0_)                                         \
  [[unroll]] for (uint u = 0u; u < B; ++u) {                            \
    const uint row = (min((J0_) + u, last - 1u) * H + h) * D8 + li;     \
    [[unroll]] for (uint g = 0u; g < MAXG; ++g)                         \
      if (g < G) {                                                      \
        K_[u][g] = k8[row + g * L];                                     \
        V_[u][g] = v8[row + g * L];                                     \
      }                                                                 \
  }
  const uint step = clusters * B;
  uint j0 = first + cluster * B;
  if (j0 < last) LOAD_BLOCK(key, value, j0)
  vec4 q_low[MAXG], q_high[MAXG], acc_low[MAXG], acc_high[MAXG];
  [[unroll]] for (uint g = 0u; g < MAXG; ++g) {
    q_low[g] = low4(q_raw[g]);
    q_high[g] = high4(q_raw[g]);
    acc_low[g] = vec4(0.0);
    acc_high[g] = vec4(0.0);
  }
  float m = kLowest, l = 0.0;
  bool nan = false;
  for (; j0 < last; j0 += step) {
    uvec4 next_key[B][MAXG], next_value[B][MAXG];
    if (j0 + step < last) LOAD_BLOCK(next_key, next_value, j0 + step)
    float score[B];
    float block_max = NEG_INF;
    [[unroll]] for (uint u = 0u; u < B; ++u) {
      float part = 0.0;
      [[unroll]] for (uint g = 0u; g < MAXG; ++g)
        if (g < G) part += dot(q_low[g], low4(key[u][g])) + dot(q_high[g], high4(key[u][g]));
      for (uint x = 1u; x < L; x <<= 1u) part += subgroupShuffleXor(part, x);
      score[u] = j0 + u < last ? part * scale : NEG_INF;
      nan = nan || isnan(score[u]);
      block_max = max(block_max, score[u]);
    }
    const float new_max = max(m, block_max), f = exp(m - new_max);
    l *= f;
    [[unroll]] for (uint g = 0u; g < MAXG; ++g) {
      acc_low[g] *= f;
      acc_high[g] *= f;
    }
    [[unroll]] for (uint u = 0u; u < B; ++u) {
      if (j0 + u >= last) break;  // a block's keys past the range (their rows repeat its last: 0 * inf is NaN)
      float w = exp(score[u] - new_max);
      w = w < kSmallestNormal ? 0.0 : w;
      l += w;
      [[unroll]] for (uint g = 0u; g < MAXG; ++g)
        if (g < G) {
          acc_low[g] += w * low4(value[u][g]);
          acc_high[g] += w * high4(value[u][g]);
        }
    }
    m = new_max;
    key = next_key;
    value = next_value;
  }
  // The subgroup's clusters merge: lane i meets lane i ^ x of another cluster.
  for (uint x = L; x < lanes; x <<= 1u) {
    const float m_other = subgroupShuffleXor(m, x), l_other = subgroupShuffleXor(l, x);
    nan = nan || subgroupShuffleXor(uint(nan), x) != 0u;
    const float top = max(m, m_other), f_self = exp(m - top), f_other = exp(m_other - top);
    l = l * f_self + l_other * f_other;
    [[unroll]] for (uint g = 0u; g < MAXG; ++g) {
      acc_low[g] = acc_low[g] * f_self + subgroupShuffleXor(acc_low[g], x) * f_other;
      acc_high[g] = acc_high[g] * f_self + subgroupShuffleXor(acc_high[g], x) * f_other;
    }
    m = top;
  }
  if (lane < L) {
    [[unroll]] for (uint g = 0u; g < MAXG; ++g)
      if (g < G) {
        const uint d = 8u * (g * L + li);
        [[unroll]] for (uint e = 0u; e < 4u; ++e) {
          sg_row[sg][d + e] = acc_low[g][e];
          sg_row[sg][d + 4u + e] = acc_high[g][e];
        }
      }
    if (lane == 0u) {
      sg_max[sg] = m;
      sg_sum[sg] = nan ? uintBitsToFloat(0x7fc00000u) : l;
    }
  }
  barrier();
  // The range's max, sum and row over its subgroups, each rescaled to the largest max.
  float top = kLowest;
  for (uint x = 0u; x < gl_NumSubgroups; ++x) top = max(top, sg_max[x]);
  const uint at = (h * STRIDE + s) * ROW;
  for (uint d = t; d < D; d += NT) {
    float row = 0.0;
    for (uint x = 0u; x < gl_NumSubgroups; ++x) row += sg_row[x][d] * exp(sg_max[x] - top);
    partials[at + d] = row;
  }
  if (t == 0u) {
    float sum = 0.0;
    for (uint x = 0u; x < gl_NumSubgroups; ++x) sum += sg_sum[x] * exp(sg_max[x] - top);
    partials[at + D] = top;
    partials[at + D + 1u] = sum;
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
  const uint subgroups = gl_NumSubgroups;
  float mx = kLowest, lx = 0.0;
  if (t < S) {
    mx = partials[(h * STRIDE + t) * ROW + D];
    lx = partials[(h * STRIDE + t) * ROW + D + 1u];
  }
  // Issued with the max and sum above, before any is used: one trip to the cache for the whole combine (at
  // NT >= D each invocation below D takes one output dim).
  float rows[MAX_RANGES];
  [[unroll]] for (uint x = 0u; x < MAX_RANGES; ++x)
    rows[x] = t < D && x < S ? partials[(h * STRIDE + x) * ROW + t] : 0.0;
  const float max_sg = subgroupMax(mx);
  if (subgroupElect()) group_max[sg] = max_sg;
  barrier();
  float total_max = kLowest;
  for (uint x = 0u; x < subgroups; ++x) total_max = max(total_max, group_max[x]);
  float wx = t < S ? exp(mx - total_max) : 0.0;
  wx = wx < kSmallestNormal ? 0.0 : wx;
  if (t < S) weight[t] = wx;
  const float sum_sg = subgroupAdd(wx * lx);
  if (subgroupElect()) group_sum[sg] = sum_sg;
  barrier();
  float denominator = 0.0;
  for (uint x = 0u; x < subgroups; ++x) denominator += group_sum[x];
  if (t < D) {
    float total = 0.0;
    [[unroll]] for (uint x = 0u; x < MAX_RANGES; ++x) total += x < S ? weight[x] * rows[x] : 0.0;
    o[h * D + t] = float16_t(total / denominator);
  }
  // The next call must find the scratch as this one did: every range's row, max and sum, and the count, zero.
  barrier();
  for (uint e = t; e < S * ROW; e += NT) partials[(h * STRIDE) * ROW + e] = 0.0;
  if (t == 0u) arrivals[h] = 0u;
}
