#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Causal multi-head attention, the portable kernel, for any head_dim, on f16 q, k and v (widened to f32 as read,
// exactly), o in f32: a workgroup of 64 invocations takes 16 queries q0..q0+15 of one head, so that each key and
// value row it reads serves all 16. Keys 0..q0+15 go by in blocks of 64:
// - scores: invocation t scores key j0 + t against the 16 queries, dot products summed over the dims in order (the
//   queries staged in shared memory 64 dims at a time), then times 1 / sqrt(head_dim); a key after its query
//   scores -inf;
// - softmax: invocation r < 16 takes row r's block max and, in key order, its sum of exp(s - new max), and the
//   factor exp(old max - new max) that rescales the row's running sum and output;
// - output: invocation t owns dims t, t + 64, ... of the 16 rows, kept in o itself (which this workgroup alone
//   writes, and this invocation alone reads back): rescaled, plus the block's weighted value rows up to each
//   row's query.
// Each row is divided by its sum at the end. The running max starts at -FLT_MAX, not -inf, so that a -inf score
// never meets -inf - -inf.
// kernelgen: dispatch (tokens + 15) / 16 heads 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint tokens; uint heads; uint head_dim; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float16_t q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float16_t v[]; };
layout(set = 0, binding = 3, std430) buffer O { float o[]; };

const uint B = 64u;   // keys per block, and dims of the query rows staged at a time
const uint QB = 16u;  // queries per workgroup
const float kLowest = -3.4028234663852886e38;
shared float staged_q[QB][B];
shared float weight[QB][B];  // the block's scores, then their weights exp(s - max)
shared float row_max[QB], row_sum[QB], row_factor[QB];

void main() {
  uint q0 = gl_WorkGroupID.x * QB, h = gl_WorkGroupID.y, t = gl_LocalInvocationID.x;
  uint T = dims.tokens, H = dims.heads, D = dims.head_dim;
  uint rows = min(QB, T - q0);  // the queries this workgroup has
  float scale = 1.0 / sqrt(float(D));
  if (t < QB) { row_max[t] = kLowest; row_sum[t] = 0.0; }
  for (uint d = t; d < D; d += B)
    for (uint r = 0u; r < rows; ++r) o[((q0 + r) * H + h) * D + d] = 0.0;

  uint last = q0 + rows - 1u;  // the last key any of these queries sees
  for (uint j0 = 0u; j0 <= last; j0 += B) {
    uint j = j0 + t;
    float dot[QB];
    [[unroll]] for (uint r = 0u; r < QB; ++r) dot[r] = 0.0;
    for (uint d0 = 0u; d0 < D; d0 += B) {
      barrier();  // the previous chunk (or block) is done with staged_q
      [[unroll]] for (uint r = 0u; r < QB; ++r)
        staged_q[r][t] = (r < rows && d0 + t < D) ? float(q[((q0 + r) * H + h) * D + d0 + t]) : 0.0;
      barrier();
      if (j <= last) {
        uint key = (j * H + h) * D;
        uint n = min(B, D - d0);
        for (uint dd = 0u; dd < n; ++dd) {
          float kd = float(k[key + d0 + dd]);
          [[unroll]] for (uint r = 0u; r < QB; ++r) dot[r] += staged_q[r][dd] * kd;
        }
      }
    }
    [[unroll]] for (uint r = 0u; r < QB; ++r)
      weight[r][t] = (r < rows && j <= q0 + r) ? dot[r] * scale : uintBitsToFloat(0xff800000u);
    barrier();
    if (t < rows) {
      float mb = weight[t][0];
      for (uint jj = 1u; jj < B; ++jj) mb = max(mb, weight[t][jj]);
      float mn = max(row_max[t], mb);
      float sum = 0.0;
      for (uint jj = 0u; jj < B; ++jj) {
        float p = exp(weight[t][jj] - mn);
        // 0 below f16's smallest value, 2^-24, as the reference, but against the running max: a weight that the
        // row's final max takes below 2^-24 may stay, within the 2^-24 its terms allow.
        p = p < 5.9604644775390625e-08 ? 0.0 : p;
        weight[t][jj] = p;
        sum += p;
      }
      float f = exp(row_max[t] - mn);
      row_factor[t] = f;
      row_sum[t] = row_sum[t] * f + sum;
      row_max[t] = mn;
    }
    barrier();
    uint count = min(B, last + 1u - j0);
    for (uint d = t; d < D; d += B) {
      float acc[QB];
      [[unroll]] for (uint r = 0u; r < QB; ++r) acc[r] = r < rows ? o[((q0 + r) * H + h) * D + d] * row_factor[r] : 0.0;
      for (uint jj = 0u; jj < count; ++jj) {
        float vd = float(v[((j0 + jj) * H + h) * D + d]);
        // Only keys up to each row's query: a later key's value (an infinity, say) must not meet its 0 weight.
        [[unroll]] for (uint r = 0u; r < QB; ++r)
          if (j0 + jj <= q0 + r) acc[r] += weight[r][jj] * vd;
      }
      [[unroll]] for (uint r = 0u; r < QB; ++r)
        if (r < rows) o[((q0 + r) * H + h) * D + d] = acc[r];
    }
  }
  barrier();
  for (uint d = t; d < D; d += B)
    for (uint r = 0u; r < rows; ++r) o[((q0 + r) * H + h) * D + d] /= row_sum[r];
}
