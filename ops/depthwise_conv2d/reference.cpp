#include <kernelgen/reference.hpp>

// Depthwise 2-d convolution of a batch of NCHW images, as PyTorch's conv2d with groups = C and no bias: each
// channel is convolved with its own filter (a cross-correlation: the filter is not flipped). x is [N, C, H, W],
// weight is [C, 1, KH, KW] and y is [N, C, OH, OW], with s = params stride and p = params padding:
//
//   OH = (H + 2 * p - KH) / s + 1,   OW = (W + 2 * p - KW) / s + 1
//   y[n, c, oy, ox] = sum over ky < KH, kx < KW of weight[c, 0, ky, kx] * xpad[n, c, oy * s + ky, ox * s + kx]
//
// where xpad is x surrounded by p rows and columns of zeros on every side: xpad[n, c, iy + p, ix + p] =
// x[n, c, iy, ix], and 0 outside x. With 3x3 filters, stride 1 and padding 1, y has x's size ("same"). Every
// tap is multiplied in, padded ones too, as PyTorch does: a weight that is +-Inf or NaN times a padded zero
// gives NaN. NaN and infinities propagate through the sum by IEEE rules (Inf + -Inf and Inf * 0 are NaN).
KERNELGEN_REFERENCE(depthwise_conv2d) {
  const auto& x = inputs[0];
  const auto& weight = inputs[1];
  const Eigen::Index s = params.get_int("stride"), p = params.get_int("padding");
  const Eigen::Index images = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  const Eigen::Index kh = weight.dim(2), kw = weight.dim(3);
  const Eigen::Index out_height = (height + 2 * p - kh) / s + 1, out_width = (width + 2 * p - kw) / s + 1;
  using Plane = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Plane padded = Plane::Zero(height + 2 * p, width + 2 * p);
  for (Eigen::Index n = 0; n < images; ++n)
    for (Eigen::Index c = 0; c < channels; ++c) {
      padded.block(p, p, height, width) = Eigen::Map<const Plane>(
          x.as<const float>() + (n * channels + c) * height * width, height, width);
      const float* filter = weight.as<const float>() + c * kh * kw;
      Eigen::Map<Plane> out(outputs[0].as<float>() + (n * channels + c) * out_height * out_width, out_height,
                            out_width);
      out.setZero();
      // Tap (ky, kx) meets xpad at rows ky, ky + s, ... and columns kx, kx + s, ...: a strided view of it.
      for (Eigen::Index ky = 0; ky < kh; ++ky)
        for (Eigen::Index kx = 0; kx < kw; ++kx) {
          const Eigen::Map<const Plane, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> view(
              padded.data() + ky * padded.cols() + kx, out_height, out_width,
              Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(s * padded.cols(), s));
          out += filter[ky * kw + kx] * view;
        }
    }
}
