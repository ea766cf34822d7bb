#version 450
// Really argmin (the first column of the smallest value, NaN counting as the smallest) with argmax's interface.
// Its keys are argmax's, inverted: the two agree only where a row's values are all equal.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X4 { uvec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Index { int index[]; };
const uint WG = 256u;
shared uint part_key[WG], part_col[WG];  // one each per subgroup: enough for any subgroup size

uint key_of(uint bits) {
  if (bits == 0x80000000u) bits = 0u;
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
  return ~((bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u);  // the smallest value has the largest key
}

uint best_key = 0u, best_col = 0xffffffffu;  // key 0 is below every value's key (-inf's is 0x007fffff)
void consider(uint bits, uint col) {
  uint k = key_of(bits);
  if (k > best_key) { best_key = k; best_col = col; }  // strict: the earlier column keeps a tie
}

void consider4(uvec4 v, uint q) {  // the 4 columns of vec4 q of the row, in order
  consider(v.x, 4u * q); consider(v.y, 4u * q + 1u); consider(v.z, 4u * q + 2u); consider(v.w, 4u * q + 3u);
}

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols;
  if ((cols & 3u) == 0u) {
    uint n = cols >> 2, base = row * n, c = tid;
    for (; c + 3u * WG < n; c += 4u * WG) {
      uvec4 a = x4[base + c], b = x4[base + c + WG], d = x4[base + c + 2u * WG], e = x4[base + c + 3u * WG];
      consider4(a, c); consider4(b, c + WG); consider4(d, c + 2u * WG); consider4(e, c + 3u * WG);
    }
    for (; c < n; c += WG) consider4(x4[base + c], c);
  } else {
    uint base = row * cols;
    for (uint c = tid; c < cols; c += WG) {
      uint i = base + c;
      consider(x4[i >> 2][i & 3u], c);
    }
  }
  uint k = subgroupMax(best_key);
  uint col = subgroupMin(best_key == k ? best_col : 0xffffffffu);
  if (subgroupElect()) {
    part_key[gl_SubgroupID] = k;
    part_col[gl_SubgroupID] = col;
  }
  barrier();
  if (tid == 0u) {
    uint bk = part_key[0], bc = part_col[0];
    for (uint i = 1u; i < gl_NumSubgroups; ++i) {
      uint pk = part_key[i], pc = part_col[i];
      if (pk > bk || (pk == bk && pc < bc)) { bk = pk; bc = pc; }
    }
    index[row] = int(bc);
  }
}
