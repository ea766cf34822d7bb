#version 450
// y = (x - mean) / sqrt(var + 1e-5) * weight + bias over each row of x (rows x cols, row-major), var biased.
// One workgroup of 256 invocations per row, reading the row from memory once into shared memory (four loads in
// flight per invocation). The statistics and the final affine step are in double: with weights and biases of
// 1e4, y is often a difference of two 1e4-sized terms, and float's rounding of (x - mean) * rstd alone would be
// 1e-3 off there; double keeps y within a float rounding of the exact result. Pass 1 sums x - shift and its
// square (shift = the row's first element, so E[(x - shift)^2] - E[x - shift]^2 does not cancel), one barrier
// combines both sums (subgroupAdd, the subgroups' partials to shared memory, then every subgroup adds them
// across its lanes the same way, so all agree: any subgroup size, deterministic), pass 2 writes
// y = (x - mean) * rstd * weight + bias from the cached row. When cols is a multiple of 4 every row starts on
// a 16-byte boundary and is moved as vec4s, otherwise as floats (x4[i >> 2][i & 3] is one float). Shared
// memory holds the first 4096 floats of a row (16 KB); columns past those are read again in pass 2.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { vec4 w4[]; };
layout(set = 0, binding = 2, std430) readonly buffer B { vec4 b4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { vec4 y4[]; };
const uint WG = 256u, CACHED = 1024u;  // vec4s of the row kept in shared memory
const double EPS = 1e-5LF;
shared vec4 cache[CACHED];
shared double red_s[WG], red_s2[WG];  // per-subgroup partial sums

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  bool vec = (cols & 3u) == 0u;
  uint n = cols >> 2, base4 = base >> 2, nc = min(n, CACHED);  // vec4 path: vec4s in the row, cached ones
  uint fc = min(cols, 4u * CACHED);                             // float path: cached floats
  double shift = double(x4[base4][base & 3u]), s = 0.0LF, s2 = 0.0LF;

  // Pass 1: cache the row; sum x - shift and (x - shift)^2.
  if (vec) {
    uint q = tid;
    for (; q + 3u * WG < nc; q += 4u * WG) {
      vec4 a = x4[base4 + q], b = x4[base4 + q + WG], c = x4[base4 + q + 2u * WG], d = x4[base4 + q + 3u * WG];
      cache[q] = a; cache[q + WG] = b; cache[q + 2u * WG] = c; cache[q + 3u * WG] = d;
      dvec4 da = dvec4(a) - shift, db = dvec4(b) - shift, dc = dvec4(c) - shift, dd = dvec4(d) - shift;
      dvec4 t = (da + db) + (dc + dd);
      s += (t.x + t.y) + (t.z + t.w);
      s2 += (dot(da, da) + dot(db, db)) + (dot(dc, dc) + dot(dd, dd));
    }
    for (; q < nc; q += WG) {
      vec4 a = x4[base4 + q];
      cache[q] = a;
      dvec4 da = dvec4(a) - shift;
      s += (da.x + da.y) + (da.z + da.w);
      s2 += dot(da, da);
    }
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c;
      float v = x4[i >> 2][i & 3u];
      cache[c >> 2][c & 3u] = v;
      double d = double(v) - shift;
      s += d;
      s2 += d * d;
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c;
    double d = double(x4[i >> 2][i & 3u]) - shift;
    s += d;
    s2 += d * d;
  }
  s = subgroupAdd(s);
  s2 = subgroupAdd(s2);
  if (subgroupElect()) {
    red_s[gl_SubgroupID] = s;
    red_s2[gl_SubgroupID] = s2;
  }
  barrier();
  s = 0.0LF;
  s2 = 0.0LF;
  for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize) {
    s += red_s[i];
    s2 += red_s2[i];
  }
  double inv_cols = 1.0LF / double(cols);
  double m = subgroupAdd(s) * inv_cols;                        // E[x - shift]
  double var = max(subgroupAdd(s2) * inv_cols - m * m, 0.0LF);  // E[(x - shift)^2] - E[x - shift]^2
  double mean = shift + m, rstd = 1.0LF / sqrt(var + EPS);

  // Pass 2: y = (x - mean) * rstd * weight + bias.
  if (vec) {
    for (uint q = tid; q < nc; q += WG)
      y4[base4 + q] = vec4((dvec4(cache[q]) - mean) * rstd * dvec4(w4[q]) + dvec4(b4[q]));
  } else {
    for (uint c = tid; c < fc; c += WG) {
      uint i = base + c, k = c >> 2, j = c & 3u;
      y4[i >> 2][i & 3u] = float((double(cache[k][j]) - mean) * rstd * double(w4[k][j]) + double(b4[k][j]));
    }
  }
  for (uint c = 4u * CACHED + tid; c < cols; c += WG) {
    uint i = base + c, k = c >> 2, j = c & 3u;
    y4[i >> 2][i & 3u] = float((double(x4[i >> 2][i & 3u]) - mean) * rstd * double(w4[k][j]) + double(b4[k][j]));
  }
}
