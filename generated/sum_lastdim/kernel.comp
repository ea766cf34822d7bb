#version 450
// y[r] = sum of row r of x (rows x cols, row-major). One workgroup of 256 invocations per row. When cols is a
// multiple of 4 every row starts on a 16-byte boundary and is read as vec4s, coalesced, four independent loads
// in flight per invocation (at cols = 4096 that is the whole row in one step); otherwise as floats
// (x4[i >> 2][i & 3] is a scalar load). Each invocation's partial sum is reduced with subgroupAdd, the
// subgroups' sums meet in shared memory and invocation 0 adds them in a fixed order: deterministic, and right
// for any subgroup size (gl_NumSubgroups of them).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
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
  float sum;
  if ((cols & 3u) == 0u) {
    uint n = cols >> 2, base = row * n, c = tid;
    vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
    for (; c + 3u * WG < n; c += 4u * WG) {
      vec4 a = x4[base + c], b = x4[base + c + WG], d = x4[base + c + 2u * WG], e = x4[base + c + 3u * WG];
      s0 += a; s1 += b; s2 += d; s3 += e;
    }
    for (; c < n; c += WG) s0 += x4[base + c];
    vec4 s = (s0 + s1) + (s2 + s3);
    sum = (s.x + s.y) + (s.z + s.w);
  } else {
    uint base = row * cols, c = tid;
    float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; c + 3u * WG < cols; c += 4u * WG) {
      uint i = base + c;
      float a = ld(i), b = ld(i + WG), d = ld(i + 2u * WG), e = ld(i + 3u * WG);
      s0 += a; s1 += b; s2 += d; s3 += e;
    }
    for (; c < cols; c += WG) s0 += ld(base + c);
    sum = (s0 + s1) + (s2 + s3);
  }
  sum = subgroupAdd(sum);
  if (subgroupElect()) partial[gl_SubgroupID] = sum;
  barrier();
  if (tid == 0u) {
    float total = 0.0;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) total += partial[i];
    y[row] = total;
  }
}
