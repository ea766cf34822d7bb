#include <kernelgen/reference.hpp>

#include <cmath>

// Layer normalization of each row of the row-major rows x cols matrix x, as
// torch.nn.functional.layer_norm(x, [cols], weight, bias, eps):
//   mean[r] = (1 / cols) * sum over c of x[r, c]
//   var[r]  = (1 / cols) * sum over c of (x[r, c] - mean[r])^2     (the biased variance: divided by cols)
//   y[r, c] = (x[r, c] - mean[r]) / sqrt(var[r] + eps) * weight[c] + bias[c],   eps = 1e-5 (PARAMS)
// The mean and the variance are taken in double here (two passes over the row), and y rounded once to float. A
// kernel in float should not use var = E[x^2] - mean^2, which cancels catastrophically when |mean| is large
// next to the spread. A row holding a NaN or an infinity gives NaN throughout; a row of equal values gives
// y = bias. A NaN or infinity in weight or bias carries into its column as IEEE arithmetic says.
KERNELGEN_REFERENCE(layernorm) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  const auto weight = kernelgen::as_array(inputs[1]);
  const auto bias = kernelgen::as_array(inputs[2]);
  auto y = kernelgen::as_matrix(outputs[0]);
  const double eps = params.get("eps");
  const Eigen::Index cols = x.cols();
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    double mean = 0.0;
    for (Eigen::Index c = 0; c < cols; ++c) mean += x(r, c);
    mean /= static_cast<double>(cols);
    double var = 0.0;
    for (Eigen::Index c = 0; c < cols; ++c) var += (x(r, c) - mean) * (x(r, c) - mean);
    var /= static_cast<double>(cols);
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (Eigen::Index c = 0; c < cols; ++c)
      y(r, c) = static_cast<float>((x(r, c) - mean) * rstd * weight[c] + bias[c]);
  }
}
