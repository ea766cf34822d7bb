#include <kernelgen/reference.hpp>

// c = a * b in half precision: a is m x k and b is k x n, f16, row-major; each element of c sums k products of
// f16 values in f32 (as tensor cores do: the products are exact in f32), in any order, and is rounded once to
// f16 (round to nearest even; beyond f16's range it is +-inf).
KERNELGEN_REFERENCE(matmul_f16) {
  const kernelgen::RowMajorMatrix a = kernelgen::as_matrix<Eigen::half>(inputs[0]).cast<float>();
  const kernelgen::RowMajorMatrix b = kernelgen::as_matrix<Eigen::half>(inputs[1]).cast<float>();
  kernelgen::as_matrix<Eigen::half>(outputs[0]) = (a * b).cast<Eigen::half>();
}
