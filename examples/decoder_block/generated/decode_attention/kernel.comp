#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// Attention of the newest tokens over an f16 KV cache, for any head_dim: a workgroup of 256 invocations (16 x 16,
// numbered by gl_LocalInvocationIndex) takes one
// query t (at position p = ctx - tokens + t) of one head, and its keys 0..p go by in blocks of 256:
// - scores: invocation i scores key j0 + i, its dot product with the query (staged in shared memory 256 dims at a
//   time) summed over the dims in order, 4 halves at a time where head_dim is a multiple of 4, then times
//   1 / sqrt(head_dim) as the reference; a key past p scores -inf;
// - softmax: the block's max and its sum of exp(s - new max) by tree reductions in shared memory (a fixed order);
//   the running sum and output are rescaled by exp(old max - new max);
// - output: the row is kept in o itself (which this workgroup alone writes): rescaled, plus the block's weighted
//   value rows, the keys split over groups of invocations that each read a row's 4-dim quads side by side, the
//   groups' sums added in order.
// The row is divided by its sum at the end; a query before the cache's first position (ctx < tokens) gets 0. The
// running max starts at -FLT_MAX, not -inf, so that a -inf score never meets -inf - -inf.
// kernelgen: dispatch tokens heads 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint tokens; uint heads; uint head_dim; uint ctx; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { f16vec4 k4[]; };
layout(set = 0, binding = 1, std430) readonly buffer KHalves { float16_t k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { f16vec4 v4[]; };
layout(set = 0, binding = 2, std430) readonly buffer VHalves { float16_t v[]; };
layout(set = 0, binding = 3, std430) buffer O { float o[]; };

const uint B = 256u;  // keys per block, and dims of the query staged at a time
const float kLowest = -3.4028234663852886e38;
shared float staged_q[B];
shared float weight[B];  // the block's weights exp(s - max)
shared float reduce[B];
shared vec4 partial[B];  // each invocation's sum of its keys' weighted value quad

uint H, D;
uint head;

// Dims 4 quad..4 quad + 3 of key j's value row (zero past head_dim).
vec4 value_quad(uint j, uint quad) {
  uint base = (j * H + head) * D + quad * 4u;
  if ((D & 3u) == 0u) return vec4(v4[base >> 2]);
  vec4 r = vec4(0.0);
  [[unroll]] for (uint e = 0u; e < 4u; ++e)
    if (quad * 4u + e < D) r[e] = float(v[base + e]);
  return r;
}

void main() {
  uint t = gl_WorkGroupID.x, h = gl_WorkGroupID.y, i = gl_LocalInvocationIndex;
  uint T = dims.tokens;
  H = dims.heads; D = dims.head_dim; head = h;
  uint quads = (D + 3u) / 4u, lanes = min(quads, B), groups = B / lanes, g = i / lanes, lane = i % lanes;
  uint row = (t * H + h) * D;
  int position = int(dims.ctx) - int(T) + int(t);
  if (position < 0) {  // no key to attend to
    for (uint d = i; d < D; d += B) o[row + d] = 0.0;
    return;
  }
  uint keys = uint(position) + 1u;
  float scale = 1.0 / sqrt(float(D));
  float m = kLowest, l = 0.0;
  for (uint d = i; d < D; d += B) o[row + d] = 0.0;

  for (uint j0 = 0u; j0 < keys; j0 += B) {
    uint j = j0 + i;
    float dot = 0.0;
    for (uint d0 = 0u; d0 < D; d0 += B) {
      barrier();  // the previous chunk (or block) is done with staged_q
      staged_q[i] = d0 + i < D ? q[row + d0 + i] : 0.0;
      barrier();
      if (j < keys) {
        uint key = (j * H + h) * D + d0, n = min(B, D - d0);
        if ((D & 3u) == 0u) {
          for (uint dd = 0u; dd < n; dd += 4u) {
            vec4 kv = vec4(k4[(key + dd) >> 2]);
            dot += staged_q[dd] * kv.x;
            dot += staged_q[dd + 1u] * kv.y;
            dot += staged_q[dd + 2u] * kv.z;
            dot += staged_q[dd + 3u] * kv.w;
          }
        } else {
          for (uint dd = 0u; dd < n; ++dd) dot += staged_q[dd] * float(k[key + dd]);
        }
      }
    }
    float s = j < keys ? dot * scale : uintBitsToFloat(0xff800000u);
    reduce[i] = s;
    barrier();
    [[unroll]] for (uint w = B / 2u; w > 0u; w >>= 1) {
      if (i < w) reduce[i] = max(reduce[i], reduce[i + w]);
      barrier();
    }
    float mn = max(m, reduce[0]);
    barrier();
    float p = exp(s - mn);
    weight[i] = p;
    reduce[i] = p;
    barrier();
    [[unroll]] for (uint w = B / 2u; w > 0u; w >>= 1) {
      if (i < w) reduce[i] += reduce[i + w];
      barrier();
    }
    float f = exp(m - mn);
    l = l * f + reduce[0];
    barrier();  // everyone has read reduce[0] and weight is complete
    uint count = min(B, keys - j0);
    // The block's weighted values: invocations split into key groups of `lanes` each, invocation (g, lane) adding
    // up keys g, g + groups, ... of value quad `lane` (4 dims, read as 8 bytes where head_dim is a multiple of 4);
    // then the g = 0 invocations add the groups' sums in order and update o.
    for (uint c0 = 0u; c0 < quads; c0 += lanes) {
      uint quad = c0 + lane;
      vec4 acc = vec4(0.0);
      if (g < groups && quad < quads)
        for (uint jj = g; jj < count; jj += groups) acc += weight[jj] * value_quad(j0 + jj, quad);
      partial[i] = acc;
      barrier();
      if (g == 0u && quad < quads) {
        vec4 sum = vec4(0.0);
        for (uint gg = 0u; gg < groups; ++gg) sum += partial[gg * lanes + lane];
        [[unroll]] for (uint e = 0u; e < 4u; ++e) {
          uint d = quad * 4u + e;
          if (d < D) o[row + d] = o[row + d] * f + sum[e];
        }
      }
      barrier();
    }
    m = mn;
    barrier();
  }
  for (uint d = i; d < D; d += B) o[row + d] = o[row + d] / l;
}
