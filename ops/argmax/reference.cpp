#include <kernelgen/reference.hpp>

#include <cmath>
#include <cstdint>

// index[r] = the column c of the largest x[r, c] in each row of the row-major rows x cols matrix x, as
// torch.argmax(x, dim=-1), written as an i32. Ties go to the first (smallest) such column. NaN counts as larger
// than every number, +inf included, so a row holding a NaN gives the column of its first NaN. -0.0 and +0.0
// are equal (the first of them wins a tie); -inf is the smallest value, so a row of only -inf gives 0.
// Values are compared exactly, subnormals included: a kernel must not flush them to zero when comparing.
KERNELGEN_REFERENCE(argmax) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto index = kernelgen::as_array<int32_t>(outputs[0]);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    Eigen::Index best = 0;
    for (Eigen::Index c = 1; c < x.cols() && !std::isnan(x(r, best)); ++c)
      if (std::isnan(x(r, c)) || x(r, c) > x(r, best)) best = c;
    index[r] = static_cast<int32_t>(best);
  }
}
