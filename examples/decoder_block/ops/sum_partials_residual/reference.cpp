#include <kernelgen/reference.hpp>

// The ranges of a split-K product added up, then the residual (linear_partials' partial products of a prefill's
// down projection): y = (p[0] + p[1] + ... + p[splits - 1]) + r, in that order, in f32.
//   p is splits x m x n f32, r and y are m x n f32. Non-finite values follow IEEE arithmetic.
KERNELGEN_REFERENCE(sum_partials_residual) {
  const auto& p = inputs[0];
  const Eigen::Index splits = p.dim(0), count = p.size() / p.dim(0);
  auto y = kernelgen::as_array(outputs[0]);
  y = Eigen::Map<const Eigen::ArrayXf>(p.as<const float>(), count);
  for (Eigen::Index s = 1; s < splits; ++s) y += Eigen::Map<const Eigen::ArrayXf>(p.as<const float>() + s * count, count);
  y += kernelgen::as_array(inputs[1]);
}
