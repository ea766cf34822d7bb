#version 450
#extension GL_EXT_control_flow_attributes : require
// o = softmax(q k^T / 8) v, flash-attention style: the seq x seq scores are never stored. A workgroup takes 32
// queries (x) and splits the keys over 8 slices (y): invocation (x, y) holds query x's row of q (pre-scaled by
// log2(e) / 8, so that exp becomes exp2) and its own running max, sum and 64-float output row, all in registers.
// Blocks of 32 keys and their values are staged in shared memory (the next block is fetched into registers
// while the current one is used); slice y takes keys 4y..4y+3 of each block, reading each key row as vec4s that
// every invocation of a subgroup shares (broadcast). Per block a slice updates its online softmax once: new max,
// rescale of the running sum and output by exp2(old max - new max), then the 4 weighted value rows. At the end
// the 8 slices' partial results are merged through shared memory in a fixed order (deterministic): the row's max
// over slices, each slice's output rescaled to it, summed, and divided by the total sum. Keys and queries past
// seq are masked out (a key's score is -inf) or not stored. The running max starts at -FLT_MAX, not -inf, so
// that a -inf score never meets -inf - -inf.
// kernelgen: dispatch (seq + 31) / 32 1 1
layout(local_size_x = 32, local_size_y = 8) in;
layout(push_constant) uniform Dims { uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { vec4 q4[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { vec4 k4[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { vec4 v4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { vec4 o4[]; };

const uint BQ = 32u;      // queries per workgroup
const uint BKEYS = 32u;   // keys per staged block
const uint SLICES = 8u;   // key slices per workgroup, 4 keys of each block each
const uint D4 = 16u;      // 64 dims as vec4s
const float kScale = 0.18033688011112042;  // log2(e) / sqrt(64)
const float kLowest = -3.4028234663852886e38;

// The staged K and V block (kv[0] keys, kv[1] values: [key][dim quad]); reused at the end to merge the slices'
// partial outputs ([slice][query][dim quad of a 16-dim chunk]).
shared vec4 kv[2][BKEYS][D4];
shared float slice_max[SLICES][BQ];
shared float slice_sum[SLICES][BQ];
shared float row_sum[BQ];
// kv seen as the merge area [slice][query][dim quad of a 16-dim chunk]: 8 x 32 x 4 = 1024 vec4s, as kv is.
#define MERGE(s, qx, i) kv[(s) >> 2][(((s) & 3u) << 3) + ((qx) >> 2)][(((qx) & 3u) << 2) + (i)]

void main() {
  uint seq = dims.seq;
  uint x = gl_LocalInvocationID.x, w = gl_LocalInvocationID.y;
  uint t = w * BQ + x;
  uint query = gl_WorkGroupID.x * BQ + x;

  vec4 qr[D4], o[D4];
  uint qrow = min(query, seq - 1u) * D4;  // a query past seq computes on the last row and is not stored
  [[unroll]] for (uint d = 0u; d < D4; ++d) { qr[d] = q4[qrow + d] * kScale; o[d] = vec4(0.0); }
  float m = kLowest, l = 0.0;

  // Staging: 512 vec4s of each of K and V per block, two per invocation: key idx / 16, dim quad idx % 16.
  uint skey0 = t >> 4, skey1 = skey0 + 16u, sd = t & 15u;
  vec4 rk0 = vec4(0.0), rk1 = vec4(0.0), rv0 = vec4(0.0), rv1 = vec4(0.0);
  if (skey0 < seq) { rk0 = k4[skey0 * D4 + sd]; rv0 = v4[skey0 * D4 + sd]; }
  if (skey1 < seq) { rk1 = k4[skey1 * D4 + sd]; rv1 = v4[skey1 * D4 + sd]; }

  for (uint j0 = 0u; j0 < seq; j0 += BKEYS) {
    kv[0][skey0][sd] = rk0; kv[0][skey1][sd] = rk1;
    kv[1][skey0][sd] = rv0; kv[1][skey1][sd] = rv1;
    barrier();
    uint jn = j0 + BKEYS;
    if (jn < seq) {
      rk0 = vec4(0.0); rk1 = vec4(0.0); rv0 = vec4(0.0); rv1 = vec4(0.0);
      if (jn + skey0 < seq) { rk0 = k4[(jn + skey0) * D4 + sd]; rv0 = v4[(jn + skey0) * D4 + sd]; }
      if (jn + skey1 < seq) { rk1 = k4[(jn + skey1) * D4 + sd]; rv1 = v4[(jn + skey1) * D4 + sd]; }
    }

    uint kb = w * 4u;
    vec4 a0 = vec4(0.0), a1 = vec4(0.0), a2 = vec4(0.0), a3 = vec4(0.0);
    [[unroll]] for (uint d = 0u; d < D4; ++d) {
      a0 += qr[d] * kv[0][kb][d];
      a1 += qr[d] * kv[0][kb + 1u][d];
      a2 += qr[d] * kv[0][kb + 2u][d];
      a3 += qr[d] * kv[0][kb + 3u][d];
    }
    vec4 s = vec4(a0.x + a0.y + a0.z + a0.w, a1.x + a1.y + a1.z + a1.w,
                  a2.x + a2.y + a2.z + a2.w, a3.x + a3.y + a3.z + a3.w);
    if (j0 + kb + 4u > seq) {  // the last block: keys past seq score -inf, weight 0
      uint left = j0 + kb >= seq ? 0u : seq - j0 - kb;
      s = mix(vec4(uintBitsToFloat(0xff800000u)), s, lessThan(uvec4(0u, 1u, 2u, 3u), uvec4(left)));
    }
    float mn = max(m, max(max(s.x, s.y), max(s.z, s.w)));
    float f = exp2(m - mn);
    vec4 p = exp2(s - mn);
    l = l * f + ((p.x + p.y) + (p.z + p.w));
    [[unroll]] for (uint d = 0u; d < D4; ++d) {
      o[d] = o[d] * f + p.x * kv[1][kb][d] + p.y * kv[1][kb + 1u][d] + p.z * kv[1][kb + 2u][d] +
             p.w * kv[1][kb + 3u][d];
    }
    m = mn;
    barrier();
  }

  // Merge the slices: every invocation finds its query's max over the slices and rescales its output to it.
  slice_max[w][x] = m;
  slice_sum[w][x] = l;
  barrier();
  float mrow = slice_max[0][x];
  [[unroll]] for (uint s = 1u; s < SLICES; ++s) mrow = max(mrow, slice_max[s][x]);
  float f = exp2(m - mrow);
  if (w == 0u) {
    float lrow = 0.0;
    [[unroll]] for (uint s = 0u; s < SLICES; ++s) lrow += slice_sum[s][x] * exp2(slice_max[s][x] - mrow);
    row_sum[x] = lrow;
  }
  // Four chunks of 16 dims: each slice writes its rescaled 32 x 4 vec4s, then 128 invocations add up the 8
  // slices, in order, and divide by the row's sum.
  uint oq = t >> 2, od = t & 3u, oquery = gl_WorkGroupID.x * BQ + oq;
  [[unroll]] for (uint c = 0u; c < 4u; ++c) {
    [[unroll]] for (uint i = 0u; i < 4u; ++i) MERGE(w, x, i) = o[c * 4u + i] * f;
    barrier();
    if (t < 128u && oquery < seq) {
      vec4 sum = vec4(0.0);
      [[unroll]] for (uint s = 0u; s < SLICES; ++s) sum += MERGE(s, oq, od);
      o4[oquery * D4 + c * 4u + od] = sum / row_sum[oq];
    }
    barrier();
  }
}
