#include <kernelgen/reference.hpp>

// y[r] = x[r, 0] + x[r, 1] + ... + x[r, cols - 1]: the sum of each row of the row-major rows x cols matrix x.
// The reference adds in double and rounds once to float, so it is the exact sum to within float's rounding;
// a kernel may add in any order in float (a tree of partial sums is more accurate than one running sum).
// IEEE rules hold: a row holding a NaN, or both +inf and -inf, sums to NaN; one with +inf (or -inf) and no
// NaN sums to +inf (or -inf).
KERNELGEN_REFERENCE(sum_lastdim) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_array(outputs[0]);
  y = x.cast<double>().rowwise().sum().array().cast<float>();
}
