#include <kernelgen/reference.hpp>

#include <cmath>
#include <limits>

// y[r] = max over c of x[r, c]: the largest element of each row of the row-major rows x cols matrix x, as
// torch.amax(x, dim=-1). A NaN anywhere in a row makes its result NaN (NaN propagates; GLSL's max() does not
// promise that, so a kernel must test isnan itself). +inf and -inf are ordinary values: a row holding +inf
// gives +inf, a row of only -inf gives -inf. -0.0 and +0.0 compare equal (either may be returned).
KERNELGEN_REFERENCE(max_lastdim) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_array(outputs[0]);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    float best = -std::numeric_limits<float>::infinity();
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      const float v = x(r, c);
      if (std::isnan(v)) {
        best = v;
        break;
      }
      if (v > best) best = v;
    }
    y[r] = best;
  }
}
