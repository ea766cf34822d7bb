#version 450
// y[r] = max of row r of x (rows x cols, row-major), NaN propagating. One workgroup of 256 invocations per row.
// When cols is a multiple of 4 every row starts on a 16-byte boundary and is read as vec4s, coalesced, four
// independent loads in flight per invocation; otherwise as floats (x4[i >> 2][i & 3] is a scalar load).
// GLSL's max() may drop a NaN, so each invocation also records whether it saw one, and a partial that saw a
// NaN is NaN from then on: subgroupMax and subgroupAny per subgroup, then invocation 0 combines the
// subgroups' results from shared memory (any subgroup size).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
const uint WG = 256u;
shared float partial[WG];  // one per subgroup: enough for any subgroup size

float ld(uint i) { return x4[i >> 2][i & 3u]; }  // one float, a scalar load

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols;
  const float NEG_INF = uintBitsToFloat(0xff800000u), NAN = uintBitsToFloat(0x7fc00000u);
  float m;
  bool nan = false;
  if ((cols & 3u) == 0u) {
    uint n = cols >> 2, base = row * n, c = tid;
    vec4 m0 = vec4(NEG_INF), m1 = m0, m2 = m0, m3 = m0;
    for (; c + 3u * WG < n; c += 4u * WG) {
      vec4 a = x4[base + c], b = x4[base + c + WG], d = x4[base + c + 2u * WG], e = x4[base + c + 3u * WG];
      nan = nan || any(isnan(a)) || any(isnan(b)) || any(isnan(d)) || any(isnan(e));
      m0 = max(m0, a); m1 = max(m1, b); m2 = max(m2, d); m3 = max(m3, e);
    }
    for (; c < n; c += WG) {
      vec4 a = x4[base + c];
      nan = nan || any(isnan(a));
      m0 = max(m0, a);
    }
    vec4 v = max(max(m0, m1), max(m2, m3));
    m = max(max(v.x, v.y), max(v.z, v.w));
  } else {
    uint base = row * cols, c = tid;
    float m0 = NEG_INF, m1 = NEG_INF, m2 = NEG_INF, m3 = NEG_INF;
    for (; c + 3u * WG < cols; c += 4u * WG) {
      uint i = base + c;
      float a = ld(i), b = ld(i + WG), d = ld(i + 2u * WG), e = ld(i + 3u * WG);
      nan = nan || isnan(a) || isnan(b) || isnan(d) || isnan(e);
      m0 = max(m0, a); m1 = max(m1, b); m2 = max(m2, d); m3 = max(m3, e);
    }
    for (; c < cols; c += WG) {
      float a = ld(base + c);
      nan = nan || isnan(a);
      m0 = max(m0, a);
    }
    m = max(max(m0, m1), max(m2, m3));
  }
  m = subgroupMax(m);
  nan = subgroupAny(nan);
  if (subgroupElect()) partial[gl_SubgroupID] = nan ? NAN : m;
  barrier();
  if (tid == 0u) {
    float best = NEG_INF;
    bool any_nan = false;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) {
      float p = partial[i];
      any_nan = any_nan || isnan(p);
      best = max(best, p);
    }
    y[row] = any_nan ? NAN : best;
  }
}
