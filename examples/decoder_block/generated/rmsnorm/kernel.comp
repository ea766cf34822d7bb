#version 450
// y = x / sqrt(mean(x^2) + 1e-6) * weight over each row of x (rows x cols, row-major). One workgroup of 256
// invocations per row, reading the row from memory once: pass 1 loads it into shared memory (four loads in
// flight per invocation) and sums its squares, pass 2 scales the cached row by rstd and weight and stores it.
// Each invocation only touches its own elements (t, t + 256, ...), so the row sum is the only barrier:
// subgroupAdd, the subgroups' partials to shared memory, and every subgroup adds those partials across its lanes
// the same way, so all agree (any subgroup size; deterministic). rstd = 1 / sqrt(ms + eps) is 0 when ms is
// inf, as the reference's x / inf. When cols is a multiple of 4 every row starts on a 16-byte boundary and is
// moved as vec4s, otherwise as floats (x4[i >> 2][i & 3] is one float). Shared memory holds the first 4096
// floats of a row (16 KB); columns past those are read again in pass 2.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { vec4 w4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y4[]; };
const uint WG = 256u, CACHED = 1024u;  // vec4s of the row kept in shared memory
const float EPS = 1e-6;
shared vec4 cache[CACHED];
shared float red[WG];  // per-subgroup partial sums

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  bool vec = (cols & 3u) == 0u;
  uint n = cols >> 2, base4 = base >> 2, nc = min(n, CACHED);  // vec4 path: vec4s in the row, cached ones
  uint fc = min(cols, 4u * CACHED);                             // float path: cached floats
  float ss = 0.0;

  // Pass 1: cache the row and sum its squares.
  if (vec) {
    uint q = tid;
    for (; q + 3u * WG < nc; q += 4u * WG) {
      vec4 a = x4[base4 + q], b = x4[base4 + q + WG], c = x4[base4 + q + 2u * WG], d = x4[base4 + q + 3u * WG];
      cache[q] = a; cache[q + WG] = b; cache[q + 2u * WG] = c; cache[q + 3u * WG] = d;
      ss += (dot(a, a) + dot(b, b)) + (dot(c, c) + dot(d, d));
    }
    for (; q < nc; q += WG) {
      vec4 a = x4[base4 + q];
      cache[q] = a;
      ss += dot(a, a);
    }
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c;
      float v = x4[i >> 2][i & 3u];
      cache[c >> 2][c & 3u] = v;
      ss += v * v;
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c;
    float v = x4[i >> 2][i & 3u];
    ss += v * v;
  }
  ss = subgroupAdd(ss);
  if (subgroupElect()) red[gl_SubgroupID] = ss;
  barrier();
  ss = 0.0;
  for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) ss += red[i];
  float rstd = 1.0 / sqrt(subgroupAdd(ss) / float(cols) + EPS);

  // Pass 2: y = x * rstd * weight.
  if (vec) {
    for (uint q = tid; q < nc; q += WG) y4[base4 + q] = cache[q] * rstd * w4[q];
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c, k = c >> 2, j = c & 3u;
      y4[i >> 2][i & 3u] = cache[k][j] * rstd * w4[k][j];
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c, k = c >> 2, j = c & 3u;
    y4[i >> 2][i & 3u] = x4[i >> 2][i & 3u] * rstd * w4[k][j];
  }
}
