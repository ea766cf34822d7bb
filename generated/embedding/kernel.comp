#version 450
// y[t, :] = table[ids[t], :]. A row is 1024 floats, 256 vec4s: a workgroup of 256 invocations copies 4 tokens'
// rows, invocation i copying vec4 i of each (4 independent coalesced 16-byte loads in flight per invocation).
// The ids are in [0, vocab) (INDEX), so they index the table unchecked; only the token count needs a guard.
// kernelgen: dispatch (n + 3) / 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint vocab; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Table { vec4 table[]; };
layout(set = 0, binding = 1, std430) readonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y[]; };
const uint kRow4 = 1024u / 4u;  // vec4s per row

void main() {
  uint i = gl_LocalInvocationID.x, t0 = gl_WorkGroupID.x * 4u;
  if (t0 + 3u < dims.n) {
    uint s0 = uint(ids[t0]) * kRow4, s1 = uint(ids[t0 + 1u]) * kRow4;
    uint s2 = uint(ids[t0 + 2u]) * kRow4, s3 = uint(ids[t0 + 3u]) * kRow4;
    vec4 v0 = table[s0 + i], v1 = table[s1 + i], v2 = table[s2 + i], v3 = table[s3 + i];
    uint d = t0 * kRow4 + i;
    y[d] = v0;
    y[d + kRow4] = v1;
    y[d + 2u * kRow4] = v2;
    y[d + 3u * kRow4] = v3;
  } else {
    for (uint t = t0; t < dims.n; ++t) y[t * kRow4 + i] = table[uint(ids[t]) * kRow4 + i];
  }
}
