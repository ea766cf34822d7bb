#include <kernelgen/reference.hpp>

// c[i] = a[i] * b[i] for every i < batch: a batched matrix product. a is batch x m x k, b is batch x k x n and
// c is batch x m x n, all row-major, so matrix i of a starts at float i * m * k, of b at i * k * n and of c at
// i * m * n. c[i, r, j] = sum over p < k of a[i, r, p] * b[i, p, j], summed in f32 in any order; with NaN or
// infinite inputs the products follow IEEE rules (0 * inf is NaN).
KERNELGEN_REFERENCE(bmm) {
  const auto& a = inputs[0];
  const auto& b = inputs[1];
  const Eigen::Index batch = a.dim(0), m = a.dim(1), k = a.dim(2), n = b.dim(2);
  for (Eigen::Index i = 0; i < batch; ++i) {
    const Eigen::Map<const kernelgen::RowMajorMatrix> ai(a.as<const float>() + i * m * k, m, k);
    const Eigen::Map<const kernelgen::RowMajorMatrix> bi(b.as<const float>() + i * k * n, k, n);
    Eigen::Map<kernelgen::RowMajorMatrix> ci(outputs[0].as<float>() + i * m * n, m, n);
    ci.noalias() = ai * bi;
  }
}
