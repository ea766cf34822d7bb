#include <kernelgen/reference.hpp>

// A linear layer without bias followed by the residual add, at a decode step's few rows (m from 1 to 16):
// y = x w^T + r, with the weight in torch.nn.Linear's layout ([out, in], as a converted checkpoint stores it).
//   x is m x k f16 (one row per token: the block's to_half rounds the activation once), w is n x k f16, r and y
//   are m x n f32:
//   y[i, j] = (sum over l of x[i, l] * w[j, l]) + r[i, j]
// The products, their sum and the add are f32, the add last. Non-finite values follow IEEE arithmetic: a NaN
// anywhere in the sum or in r[i, j] gives NaN.
KERNELGEN_REFERENCE(gemv_residual) {
  const auto x = kernelgen::as_matrix<Eigen::half>(inputs[0]);
  const auto w = kernelgen::as_matrix<Eigen::half>(inputs[1]);
  const auto r = kernelgen::as_matrix(inputs[2]);
  auto y = kernelgen::as_matrix(outputs[0]);
  y.noalias() = x.cast<float>() * w.cast<float>().transpose();
  y += r;
}
