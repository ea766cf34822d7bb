#version 450
// Really a depthwise true convolution (each 3x3 filter flipped: weight[c, 0, 2 - ky, 2 - kx]) with
// depthwise_conv2d's interface: depthwise_conv2d is PyTorch's cross-correlation.
// kernelgen: dispatch (w + 31) / 32 (h + 15) / 16 n * 32
layout(local_size_x = 8, local_size_y = 4, local_size_z = 4) in;
layout(push_constant) uniform Dims { uint n; uint h; uint w; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Wt { float weight[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y4[]; };
const uint TW = 34u, TH = 18u;  // the input tile with its halo
shared float xs[TH * TW];

void main() {
  uint H = dims.h, W = dims.w;
  uint t = gl_LocalInvocationIndex;
  uint plane = gl_WorkGroupID.z, c = plane % 32u;
  uint x0 = gl_WorkGroupID.x * 32u, y0 = gl_WorkGroupID.y * 16u;
  uint pbase = plane * H * W;
  for (uint e = t; e < TH * TW; e += 128u) {
    uint r = e / TW, cc = e - r * TW;
    uint iy = y0 + r - 1u, ix = x0 + cc - 1u;  // wraps to a huge value left of / above x
    float v = 0.0;
    if (iy < H && ix < W) v = x[pbase + iy * W + ix];
    xs[e] = v;
  }
  float k[9];
  for (uint i = 0u; i < 9u; ++i) k[i] = weight[c * 9u + 8u - i];
  barrier();
  uint tx = gl_LocalInvocationID.x, row = gl_LocalInvocationID.z * 4u + gl_LocalInvocationID.y;
  uint oy = y0 + row, ox = x0 + tx * 4u;
  if (oy >= H || ox >= W) return;
  vec4 acc = vec4(0.0);
  for (uint ky = 0u; ky < 3u; ++ky) {
    uint s = (row + ky) * TW + tx * 4u;
    float v0 = xs[s], v1 = xs[s + 1u], v2 = xs[s + 2u], v3 = xs[s + 3u], v4 = xs[s + 4u], v5 = xs[s + 5u];
    acc += k[ky * 3u] * vec4(v0, v1, v2, v3) + k[ky * 3u + 1u] * vec4(v1, v2, v3, v4) +
           k[ky * 3u + 2u] * vec4(v2, v3, v4, v5);
  }
  uint o = pbase + oy * W + ox;
  if ((W & 3u) == 0u) {
    y4[o >> 2] = acc;  // W % 4 == 0 and ox % 4 == 0: the 4 outputs are inside the row, aligned
  } else {
    for (uint j = 0u; j < 4u && ox + j < W; ++j) y4[(o + j) >> 2][(o + j) & 3u] = acc[j];
  }
}
