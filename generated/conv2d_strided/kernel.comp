#version 450
// conv2d, 32 -> 64 channels, 3x3, stride 2, padding 1, 28x28 -> 14x14, NCHW, as an implicit GEMM:
// y[img, o, pos] = bias[o] + sum over k < 288 of weight[o, k] * patch[k, img * 196 + pos], where k = c * 9 +
// ky * 3 + kx and patch[k, .] is x[img, c, 2 * oy - 1 + ky, 2 * ox - 1 + kx] (0 in the padding; the padded
// zero is multiplied in, as the reference does). A workgroup of 256 invocations computes 64 output channels x
// 64 consecutive positions of the flattened (image, oy, ox) axis; invocation (tp, to) owns 4 channels x 4
// positions (register blocking: 16 multiply-adds per two vec4 shared loads). k runs in 8 chunks of 36
// (4 input channels): the filters' chunk and the gathered patches (im2col on the fly, zero outside x) are
// staged in shared memory as vec4s over 4 channels and 4 positions. The 4 positions an invocation gathers
// are fixed, so their (image, oy, ox) are decoded once. 196 is a multiple of 4, so 4 positions aligned to 4
// lie in one image and are stored as one vec4, coalesced along the positions.
// kernelgen: dispatch (n * 196 + 63) / 64 1 1
layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Wt { float weight[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { vec4 bias4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { vec4 y4[]; };
shared vec4 As[36 * 16];  // As[kk * 16 + o / 4][o % 4] = weight[o, chunk * 36 + kk]
shared vec4 Bs[36 * 16];  // Bs[kk * 16 + p / 4][p % 4] = patch[chunk * 36 + kk, tile + p]

void main() {
  uint t = gl_LocalInvocationIndex;
  uint total = dims.n * 196u;
  uint tile = gl_WorkGroupID.x * 64u;
  // Gather role: positions tile + 4 gp + i (i < 4), rows kk = gk + 16 j of each chunk. Decode them once.
  uint gp = t & 15u, gk = t >> 4;
  uint xoff[4];
  int iy0[4], ix0[4];
  bool valid[4];
  for (uint i = 0u; i < 4u; ++i) {
    uint P = tile + gp * 4u + i;
    valid[i] = P < total;
    uint img = P / 196u, r = P - img * 196u;
    xoff[i] = valid[i] ? img * 32u * 784u : 0u;
    iy0[i] = int(r / 14u) * 2 - 1;
    ix0[i] = int(r % 14u) * 2 - 1;
  }
  // Compute role: positions 4 tp.., channels 4 to..; a subgroup of 32 spans 4 tp x 8 to, so at each k step
  // its 32 invocations read only 4 + 8 distinct vec4s of shared memory (broadcasts).
  uint lane = t & 31u, warp = t >> 5;
  uint tp = (warp & 3u) * 4u + (lane & 3u), to = (warp >> 2) * 8u + (lane >> 2);
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (uint chunk = 0u; chunk < 8u; ++chunk) {
    for (uint e = t; e < 576u; e += 256u) {  // filters: 16 groups of 4 channels x 36 k
      uint og = e / 36u, kk = e - og * 36u;
      uint src = og * 4u * 288u + chunk * 36u + kk;
      As[kk * 16u + og] = vec4(weight[src], weight[src + 288u], weight[src + 576u], weight[src + 864u]);
    }
    for (uint kk = gk; kk < 36u; kk += 16u) {  // patches: 36 k x 16 groups of 4 positions
      uint c = chunk * 4u + kk / 9u, tap = kk % 9u;
      int dy = int(tap / 3u), dx = int(tap % 3u);
      vec4 v = vec4(0.0);
      for (uint i = 0u; i < 4u; ++i) {
        int iy = iy0[i] + dy, ix = ix0[i] + dx;
        if (valid[i] && uint(iy) < 28u && uint(ix) < 28u) v[i] = x[xoff[i] + c * 784u + uint(iy) * 28u + uint(ix)];
      }
      Bs[kk * 16u + gp] = v;
    }
    barrier();
    for (uint kk = 0u; kk < 36u; ++kk) {
      vec4 a = As[kk * 16u + to], b = Bs[kk * 16u + tp];
      acc0 += a.x * b;
      acc1 += a.y * b;
      acc2 += a.z * b;
      acc3 += a.w * b;
    }
    barrier();
  }
  uint P0 = tile + tp * 4u;
  if (P0 >= total) return;
  uint im = P0 / 196u, r0 = P0 % 196u;
  vec4 b = bias4[to];
  uint out4 = (im * 64u + to * 4u) * 49u + r0 / 4u;  // vec4 index of y[im, 4 to, r0]
  y4[out4] = acc0 + b.x;
  y4[out4 + 49u] = acc1 + b.y;
  y4[out4 + 98u] = acc2 + b.z;
  y4[out4 + 147u] = acc3 + b.w;
}
