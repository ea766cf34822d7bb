#include <kernelgen/reference.hpp>

#include <limits>

// 2-d max pooling of a batch of NCHW images, as PyTorch's max_pool2d without padding: x is [N, C, H, W] and y
// is [N, C, OH, OW], with k = params kernel and s = params stride:
//
//   OH = (H - k) / s + 1,   OW = (W - k) / s + 1
//   y[n, c, oy, ox] = max over ky < k, kx < k of x[n, c, oy * s + ky, ox * s + kx]
//
// Each (image, channel) plane is pooled on its own. NaN propagates as in PyTorch: a window holding a NaN gives
// NaN. Otherwise it is the largest value, infinities included (a window of -Inf gives -Inf).
KERNELGEN_REFERENCE(maxpool2d) {
  const auto& x = inputs[0];
  const Eigen::Index k = params.get_int("kernel"), s = params.get_int("stride");
  const Eigen::Index planes = x.dim(0) * x.dim(1), height = x.dim(2), width = x.dim(3);
  const Eigen::Index out_height = (height - k) / s + 1, out_width = (width - k) / s + 1;
  for (Eigen::Index plane = 0; plane < planes; ++plane) {
    const Eigen::Map<const kernelgen::RowMajorMatrix> in(x.as<const float>() + plane * height * width, height,
                                                         width);
    Eigen::Map<kernelgen::RowMajorMatrix> out(outputs[0].as<float>() + plane * out_height * out_width, out_height,
                                              out_width);
    for (Eigen::Index oy = 0; oy < out_height; ++oy)
      for (Eigen::Index ox = 0; ox < out_width; ++ox) {
        const auto window = in.block(oy * s, ox * s, k, k);
        out(oy, ox) = window.hasNaN() ? std::numeric_limits<float>::quiet_NaN() : window.maxCoeff();
      }
  }
}
