#include <kernelgen/reference.hpp>

// c = a * b in bf16: a is m x k and b is k x n, bf16 (the upper 16 bits of an f32), row-major; each element of c
// sums k products in f32, where the bf16 values and their products are exact, in any order, and is rounded once
// to the nearest bf16, ties to even (an overflow rounds to an infinity, a NaN stays NaN).
KERNELGEN_REFERENCE(matmul_bf16) {
  const kernelgen::RowMajorMatrix a = kernelgen::as_matrix<Eigen::bfloat16>(inputs[0]).cast<float>();
  const kernelgen::RowMajorMatrix b = kernelgen::as_matrix<Eigen::bfloat16>(inputs[1]).cast<float>();
  kernelgen::as_matrix<Eigen::bfloat16>(outputs[0]) = (a * b).cast<Eigen::bfloat16>();
}
