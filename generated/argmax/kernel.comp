#version 450
// index[r] = first column of the largest x[r, c], NaN counting as the largest (torch.argmax). One workgroup of
// 256 invocations per row, reading vec4s when cols is a multiple of 4 (rows then start on 16-byte boundaries),
// else floats. Each value becomes an order-preserving uint key computed on its bits, so the comparison is exact
// (no flush of subnormals) and one unsigned max decides: negative floats map to ~bits, the others to
// bits | 0x80000000, -0.0 to +0.0's key, and every NaN to 0xffffffff, above +inf. An invocation keeps the first
// best column of its own (increasing) columns; a subgroup takes subgroupMax of the keys and subgroupMin of the
// columns holding it; invocation 0 combines the subgroups in shared memory, smallest column on equal keys.
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
  if (bits == 0x80000000u) bits = 0u;                   // -0.0 ties with +0.0
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;  // NaN: above everything
  return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
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
