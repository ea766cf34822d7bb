#include <kernelgen/reference.hpp>

// y = relu(conv2d(x, weight) + bias), fused: a 2-d convolution of a batch of NCHW images as PyTorch's conv2d
// (a cross-correlation: the filter is not flipped), one bias per output channel, then relu. x is
// [N, C, H, W], weight is [O, C, KH, KW], bias is [O] and y is [N, O, OH, OW], with s = params stride and
// p = params padding:
//
//   OH = (H + 2 * p - KH) / s + 1,   OW = (W + 2 * p - KW) / s + 1
//   v = bias[o] + sum over c < C, ky < KH, kx < KW of weight[o, c, ky, kx] * xpad[n, c, oy * s + ky, ox * s + kx]
//   y[n, o, oy, ox] = v < 0 ? 0 : v        (relu; a NaN v stays NaN, as torch.relu)
//
// where xpad is x surrounded by p rows and columns of zeros on every side: xpad[n, c, iy + p, ix + p] =
// x[n, c, iy, ix], and 0 outside x. With 3x3 filters, stride 1 and padding 1, y is as high and wide as x.
// Every tap is multiplied in, padded ones too, as PyTorch's im2col does: a weight that is +-Inf or NaN times a
// padded zero gives NaN. NaN and infinities propagate through the sum by IEEE rules (Inf + -Inf and Inf * 0
// are NaN).
//
// The sum is computed as a matrix product: for each image, the patches (im2col) are a (C * KH * KW) x (OH * OW)
// matrix whose column oy * OW + ox holds the C * KH * KW values of xpad under the filter at (oy, ox), in the
// order of weight's last three extents; weight read as an O x (C * KH * KW) matrix times the patches gives
// the sums as an O x (OH * OW) matrix, bias[o] is added to its row o, and relu to every element.
KERNELGEN_REFERENCE(conv2d_bias_relu) {
  const auto& x = inputs[0];
  const auto& weight = inputs[1];
  const Eigen::Index s = params.get_int("stride"), p = params.get_int("padding");
  const Eigen::Index images = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  const Eigen::Index out_channels = weight.dim(0), kh = weight.dim(2), kw = weight.dim(3);
  const Eigen::Index out_height = (height + 2 * p - kh) / s + 1, out_width = (width + 2 * p - kw) / s + 1;
  const Eigen::Index taps = channels * kh * kw, positions = out_height * out_width;

  const Eigen::Map<const kernelgen::RowMajorMatrix> w(weight.as<const float>(), out_channels, taps);
  const auto bias = kernelgen::as_array(inputs[2]).matrix();
  kernelgen::RowMajorMatrix patches(taps, positions);
  for (Eigen::Index n = 0; n < images; ++n) {
    const float* image = x.as<const float>() + n * channels * height * width;
    for (Eigen::Index c = 0; c < channels; ++c)
      for (Eigen::Index ky = 0; ky < kh; ++ky)
        for (Eigen::Index kx = 0; kx < kw; ++kx)
          for (Eigen::Index oy = 0; oy < out_height; ++oy)
            for (Eigen::Index ox = 0; ox < out_width; ++ox) {
              const Eigen::Index iy = oy * s + ky - p, ix = ox * s + kx - p;
              const bool inside = iy >= 0 && iy < height && ix >= 0 && ix < width;
              patches((c * kh + ky) * kw + kx, oy * out_width + ox) =
                  inside ? image[(c * height + iy) * width + ix] : 0.0f;
            }
    Eigen::Map<kernelgen::RowMajorMatrix> y(outputs[0].as<float>() + n * out_channels * positions, out_channels,
                                            positions);
    y.noalias() = w * patches;
    y.colwise() += bias;
    y = y.unaryExpr([](float v) { return v < 0.0f ? 0.0f : v; });
  }
}
