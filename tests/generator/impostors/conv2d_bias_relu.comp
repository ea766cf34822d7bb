#version 450
// Really conv2d(x, weight, padding 1) + bias without the relu, with conv2d_bias_relu's interface: the two agree
// wherever the sum is >= 0.
// kernelgen: dispatch (w + 27) / 28 (h + 7) / 8 n
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(push_constant) uniform Dims { uint n; uint h; uint w; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Wt { float weight[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { vec4 bias4[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint TW = 28u, TH = 8u, XW = TW + 2u, XH = TH + 2u, ICB = 8u;
shared float xs[ICB * XH * XW];     // xs[(ic * XH + r) * XW + col]: input channel chunk * 8 + ic
shared vec4 ws[ICB * 9u * 16u];     // ws[(ic * 9 + tap) * 16 + o / 4][o % 4] = weight[o, chunk * 8 + ic, tap]

void main() {
  uint H = dims.h, W = dims.w;
  uint t = gl_LocalInvocationIndex;
  uint og = t >> 5, row = (t >> 2) & 7u, seg = t & 3u;
  uint img = gl_WorkGroupID.z;
  uint x0 = gl_WorkGroupID.x * TW, y0 = gl_WorkGroupID.y * TH;
  uint plane = H * W;
  // Invocations whose outputs all lie outside y (a ragged tile) still stage and reach the barriers, but skip
  // the multiply-adds.
  bool busy = y0 + row < H && x0 + seg * 7u < W;
  vec4 acc[14];  // acc[2 p + q]: output x0 + 7 seg + p, channels og * 8 + 4 q..
  [[unroll]] for (uint i = 0u; i < 14u; ++i) acc[i] = vec4(0.0);
  for (uint chunk = 0u; chunk < 8u; ++chunk) {
    uint xbase = (img * 64u + chunk * ICB) * plane;
    for (uint e = t; e < ICB * XH * XW; e += 256u) {
      uint ic = e / (XH * XW), rem = e - ic * (XH * XW);
      uint r = rem / XW, col = rem - r * XW;
      uint iy = y0 + r - 1u, ix = x0 + col - 1u;  // wraps to a huge value above / left of x
      float v = 0.0;
      if (iy < H && ix < W) v = x[xbase + ic * plane + iy * W + ix];
      xs[e] = v;
    }
    for (uint e = t; e < ICB * 9u * 16u; e += 256u) {
      uint og4 = e / 72u, k = e - og4 * 72u;  // 4 output channels og4 * 4.., k = ic * 9 + tap of this chunk
      uint src = og4 * 4u * 576u + chunk * 72u + k;
      ws[k * 16u + og4] = vec4(weight[src], weight[src + 576u], weight[src + 1152u], weight[src + 1728u]);
    }
    barrier();
    for (uint ic = 0u; ic < ICB && busy; ++ic) {
      [[unroll]] for (uint ky = 0u; ky < 3u; ++ky) {
        uint s = (ic * XH + row + ky) * XW + seg * 7u;
        float v[9];
        [[unroll]] for (uint i = 0u; i < 9u; ++i) v[i] = xs[s + i];
        [[unroll]] for (uint kx = 0u; kx < 3u; ++kx) {
          uint wi = (ic * 9u + ky * 3u + kx) * 16u + og * 2u;
          vec4 wa = ws[wi], wb = ws[wi + 1u];
          [[unroll]] for (uint p = 0u; p < 7u; ++p) {
            acc[2u * p] += v[p + kx] * wa;
            acc[2u * p + 1u] += v[p + kx] * wb;
          }
        }
      }
    }
    barrier();
  }
  uint oy = y0 + row;
  if (oy >= H) return;
  vec4 ba = bias4[og * 2u], bb = bias4[og * 2u + 1u];
  uint obase = (img * 64u + og * 8u) * plane + oy * W;
  [[unroll]] for (uint p = 0u; p < 7u; ++p) {
    uint ox = x0 + seg * 7u + p;
    if (ox < W) {
      vec4 ra = acc[2u * p] + ba, rb = acc[2u * p + 1u] + bb;
      [[unroll]] for (uint o = 0u; o < 4u; ++o) {
        y[obase + o * plane + ox] = ra[o];
        y[obase + (o + 4u) * plane + ox] = rb[o];
      }
    }
  }
}
