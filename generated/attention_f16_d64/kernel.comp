#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// o = softmax(q k^T / sqrt(64), causal) v for each head, f16 in and out, f32 inside: the portable kernel,
// flash-attention style (the seq x seq scores are never stored). A workgroup takes 64 consecutive queries of one
// head, one per invocation, which holds its row of q (widened, times log2(e) / sqrt(64), so that exp becomes
// exp2), its running max and sum and its 64-float output row in registers. Blocks of 16 keys and their values,
// up to the workgroup's last query, are widened into shared memory by all 64 invocations; each invocation then
// takes the keys of the block up to its own query: score, online softmax update (new max, rescale of the sum and
// the output by exp2(old max - new max)), weighted value row. The running max starts at -FLT_MAX, not -inf, so
// that a -inf score never meets -inf - -inf. Keys past seq are not staged; queries past seq are not stored.
// kernelgen: dispatch (seq + 63) / 64 heads 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint heads; uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { f16vec4 q4[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { f16vec4 k4[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { f16vec4 v4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { f16vec4 o4[]; };
const uint BQ = 64u, BKEYS = 16u, D4 = 16u;  // D4: the 64 dims as vec4s
const float kScale = 0.18033688011112042;     // log2(e) / sqrt(64)
const float kLowest = -3.4028234663852886e38;
shared vec4 ks[BKEYS][D4];
shared vec4 vs[BKEYS][D4];

void main() {
  uint seq = dims.seq, h = gl_WorkGroupID.y, t = gl_LocalInvocationID.x;
  uint q0 = gl_WorkGroupID.x * BQ, qi = q0 + t;
  uint base = h * seq * D4;  // head h's first vec4
  vec4 q[D4], o[D4];
  [[unroll]] for (uint d = 0u; d < D4; ++d) {
    q[d] = qi < seq ? vec4(q4[base + qi * D4 + d]) * kScale : vec4(0.0);
    o[d] = vec4(0.0);
  }
  float m = kLowest, l = 0.0;
  uint last = min(q0 + BQ, seq);  // keys 0..last-1 are needed by some query of the workgroup
  for (uint k0 = 0u; k0 < last; k0 += BKEYS) {
    for (uint e = t; e < BKEYS * D4; e += BQ) {
      uint key = k0 + e / D4, d = e % D4;
      ks[e / D4][d] = key < seq ? vec4(k4[base + key * D4 + d]) : vec4(0.0);
      vs[e / D4][d] = key < seq ? vec4(v4[base + key * D4 + d]) : vec4(0.0);
    }
    barrier();
    for (uint j = 0u; j < BKEYS; ++j) {
      uint key = k0 + j;
      if (key > qi || key >= seq) break;
      float s = 0.0;
      [[unroll]] for (uint d = 0u; d < D4; ++d) s += dot(q[d], ks[j][d]);
      if (s > m) {
        float rescale = exp2(m - s);
        l *= rescale;
        [[unroll]] for (uint d = 0u; d < D4; ++d) o[d] *= rescale;
        m = s;
      }
      float p = exp2(s - m);
      l += p;
      [[unroll]] for (uint d = 0u; d < D4; ++d) o[d] += p * vs[j][d];
    }
    barrier();
  }
  if (qi < seq) {
    [[unroll]] for (uint d = 0u; d < D4; ++d) o4[base + qi * D4 + d] = f16vec4(o[d] / l);
  }
}
