#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

// y[r, c] = exp(x[r, c] - m) / sum over c' of exp(x[r, c'] - m), m = max over c of x[r, c]: the softmax of each
// row of the row-major rows x cols matrix x, as torch.softmax(x, dim=-1). Subtracting the row's max keeps every
// exp() at most 1, so rows of large values (1e4) do not overflow; the exps and their sum are taken in double
// here, rounded once to float. A row holding a NaN or +inf, or holding only -inf, gives NaN throughout (as in
// torch); a -inf in any other row gives exactly 0 there.
KERNELGEN_REFERENCE(softmax) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_matrix(outputs[0]);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index c = 0; c < x.cols(); ++c) m = std::max(m, static_cast<double>(x(r, c)));
    double sum = 0.0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) sum += std::exp(x(r, c) - m);
    for (Eigen::Index c = 0; c < x.cols(); ++c) y(r, c) = static_cast<float>(std::exp(x(r, c) - m) / sum);
  }
}
