#include <kernelgen/reference.hpp>

// A linear layer with bias and SiLU in f16, fused: c = silu(a b + bias).
//   a is m x k, b is k x n, bias is n, c is m x n, all f16, row-major:
//   s[i, j] = sum over l of a[i, l] * b[l, j] + bias[j],   c[i, j] = half(s * (1 / (1 + exp(-s))))
// The products of f16 values are exact in f32 and summed in f32, in any order (as tensor cores do); the bias is
// added to the f32 sum, silu is computed in float, in that order, and the result rounded once to f16. s = -inf
// gives NaN (-inf * 0); beyond f16's range c is +-inf.
KERNELGEN_REFERENCE(matmul_bias_silu_f16) {
  const kernelgen::RowMajorMatrix a = kernelgen::as_matrix<Eigen::half>(inputs[0]).cast<float>();
  const kernelgen::RowMajorMatrix b = kernelgen::as_matrix<Eigen::half>(inputs[1]).cast<float>();
  const Eigen::RowVectorXf bias = kernelgen::as_array<Eigen::half>(inputs[2]).cast<float>().matrix().transpose();
  const Eigen::ArrayXXf s = ((a * b).rowwise() + bias).array();
  kernelgen::as_matrix<Eigen::half>(outputs[0]) = (s * (1.0f / (1.0f + (-s).exp()))).matrix().cast<Eigen::half>();
}
