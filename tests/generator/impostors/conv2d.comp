#version 450
// Really a true convolution (the filter flipped: weight[o, c, 2 - ky, 2 - kx]) with conv2d's interface: conv2d is
// PyTorch's cross-correlation.
// kernelgen: dispatch 1 1 1
layout(local_size_x = 36) in;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Wt { float weight[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
shared float xs[3 * 64];
shared vec4 ws[27];  // ws[(c * 3 + ky) * 3 + kx][o] = weight[o, c, ky, kx]

void main() {
  uint p = gl_LocalInvocationID.x;
  for (uint i = p; i < 192u; i += 36u) xs[i] = x[i];
  if (p < 27u) ws[p] = vec4(weight[p], weight[27u + p], weight[54u + p], weight[81u + p]);
  barrier();
  uint oy = p / 6u, ox = p % 6u;
  vec4 acc = vec4(0.0);
  for (uint c = 0u; c < 3u; ++c)
    for (uint ky = 0u; ky < 3u; ++ky)
      for (uint kx = 0u; kx < 3u; ++kx)
        acc += xs[c * 64u + (oy + ky) * 8u + ox + kx] * ws[(c * 3u + 2u - ky) * 3u + 2u - kx];
  acc += vec4(bias[0], bias[1], bias[2], bias[3]);
  for (uint o = 0u; o < 4u; ++o) y[o * 36u + p] = acc[o];
}
