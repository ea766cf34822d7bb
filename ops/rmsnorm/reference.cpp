#include <kernelgen/reference.hpp>

#include <cmath>

// RMS normalization of each row of the row-major rows x cols matrix x (as in LLaMA, or
// torch.nn.functional.rms_norm(x, [cols], weight, eps)):
//   ms[r]   = (1 / cols) * sum over c of x[r, c]^2
//   y[r, c] = x[r, c] / sqrt(ms[r] + eps) * weight[c],   eps = 1e-6 (PARAMS)
// There is no mean subtraction and no bias. The sum of squares is taken in double here, and y rounded once to
// float. A row holding a NaN gives NaN throughout. A row holding +inf or -inf has ms = inf: its infinities
// give NaN (inf / inf) and its finite elements give 0 (times weight[c], so NaN where weight[c] is not finite).
KERNELGEN_REFERENCE(rmsnorm) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  const auto weight = kernelgen::as_array(inputs[1]);
  auto y = kernelgen::as_matrix(outputs[0]);
  const double eps = params.get("eps");
  const Eigen::Index cols = x.cols();
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    double ms = 0.0;
    for (Eigen::Index c = 0; c < cols; ++c) ms += static_cast<double>(x(r, c)) * x(r, c);
    ms /= static_cast<double>(cols);
    const double rms = std::sqrt(ms + eps);
    for (Eigen::Index c = 0; c < cols; ++c) y(r, c) = static_cast<float>(x(r, c) / rms * weight[c]);
  }
}
