#include <kernelgen/reference.hpp>

// y[n, c, h, w] = x[n, c, h, w] + bias[c], NCHW: x and y are images x channels x (height * width), so each
// (image, channel) pair is one row of height * width elements, and bias[c] is added to every element of it.
KERNELGEN_REFERENCE(bias_add) {
  const auto& x = inputs[0];
  const Eigen::Index images = x.dim(0), channels = x.dim(1), plane = x.dim(2) * x.dim(3);
  const Eigen::Map<const kernelgen::RowMajorMatrix> x_rows(x.as<const float>(), images * channels, plane);
  Eigen::Map<kernelgen::RowMajorMatrix> y_rows(outputs[0].as<float>(), images * channels, plane);
  const auto bias = kernelgen::as_array(inputs[1]).matrix();
  for (Eigen::Index image = 0; image < images; ++image)
    y_rows.middleRows(image * channels, channels) = x_rows.middleRows(image * channels, channels).colwise() + bias;
}
