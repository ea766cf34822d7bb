#version 450
// y = softmax of each row of x (rows x cols, row-major), stable: exp(x - rowmax) / sum. One workgroup of 256
// invocations per row, reading the row from memory once: pass 1 loads it into shared memory (four loads in
// flight per invocation) and takes its max, pass 2 turns the cached row into exp(x - max) in place and sums
// it, pass 3 scales and stores. Each invocation only touches its own elements (t, t + 256, ...), so the two
// row reductions are the only barriers: subgroupMax/subgroupAdd, the subgroups' partials to shared memory, and
// every subgroup reduces those partials across its lanes the same way, so all agree on the result (any
// subgroup size; deterministic). When cols is a multiple of 4 every row starts on a 16-byte boundary and is
// moved as vec4s, otherwise as floats (x4[i >> 2][i & 3] is one float). Shared memory holds the first 4096
// floats of a row (16 KB); columns past those are read again, as floats, in passes 2 and 3.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y4[]; };
const uint WG = 256u, CACHED = 1024u;  // vec4s of the row kept in shared memory
shared vec4 cache[CACHED];
shared float red[2][WG];  // per-subgroup partials; two banks, so back-to-back reductions need no extra barrier

float row_max(float v) {
  v = subgroupMax(v);
  if (subgroupElect()) red[0][gl_SubgroupID] = v;
  barrier();
  float m = uintBitsToFloat(0xff800000u);
  for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) m = max(m, red[0][i]);
  return subgroupMax(m);
}

float row_sum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) red[1][gl_SubgroupID] = v;
  barrier();
  float s = 0.0;
  for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) s += red[1][i];
  return subgroupAdd(s);
}

float max4(vec4 v) { return max(max(v.x, v.y), max(v.z, v.w)); }
float sum4(vec4 v) { return (v.x + v.y) + (v.z + v.w); }

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  bool vec = (cols & 3u) == 0u;
  uint n = cols >> 2, base4 = base >> 2, nc = min(n, CACHED);  // vec4 path: vec4s in the row, cached ones
  uint fc = min(cols, 4u * CACHED);                             // float path: cached floats
  float m = uintBitsToFloat(0xff800000u), s = 0.0;

  // Pass 1: cache the row and take its max.
  if (vec) {
    uint q = tid;
    for (; q + 3u * WG < nc; q += 4u * WG) {
      vec4 a = x4[base4 + q], b = x4[base4 + q + WG], c = x4[base4 + q + 2u * WG], d = x4[base4 + q + 3u * WG];
      cache[q] = a; cache[q + WG] = b; cache[q + 2u * WG] = c; cache[q + 3u * WG] = d;
      m = max(m, max(max(max4(a), max4(b)), max(max4(c), max4(d))));
    }
    for (; q < nc; q += WG) {
      vec4 a = x4[base4 + q];
      cache[q] = a;
      m = max(m, max4(a));
    }
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c;
      float v = x4[i >> 2][i & 3u];
      cache[c >> 2][c & 3u] = v;
      m = max(m, v);
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c;
    m = max(m, x4[i >> 2][i & 3u]);
  }
  m = row_max(m);

  // Pass 2: exp(x - max) in place, and its sum.
  if (vec) {
    for (uint q = tid; q < nc; q += WG) {
      vec4 e = exp(cache[q] - m);
      cache[q] = e;
      s += sum4(e);
    }
  } else {
    for (uint c = tid; c < fc; c += WG) {
      float e = exp(cache[c >> 2][c & 3u] - m);
      cache[c >> 2][c & 3u] = e;
      s += e;
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c;
    s += exp(x4[i >> 2][i & 3u] - m);
  }
  float inv = 1.0 / row_sum(s);

  // Pass 3: scale and store.
  if (vec) {
    for (uint q = tid; q < nc; q += WG) y4[base4 + q] = cache[q] * inv;
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c;
      y4[i >> 2][i & 3u] = cache[c >> 2][c & 3u] * inv;
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c;
    y4[i >> 2][i & 3u] = exp(x4[i >> 2][i & 3u] - m) * inv;
  }
}
