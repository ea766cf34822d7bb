#include <kernelgen/reference.hpp>

// A linear layer without bias at a decode step's few rows (m from 1 to 16): y = x w^T, with the weight in
// torch.nn.Linear's layout ([out, in], as a converted checkpoint stores it).
//   x is m x k f16 (one row per token: the block's to_half rounds the activation once, as for a prefill's
//   ops/linear), w is n x k f16 (row j holds output j's weights), y is m x n f32:
//   y[i, j] = sum over l of x[i, l] * w[j, l]
// The products and their sum are f32 (a product of two f16 values is exact in f32). Non-finite values follow
// IEEE arithmetic: a NaN or infinity in row i of x or row j of w makes y[i, j] NaN or infinite as the sum gives.
KERNELGEN_REFERENCE(gemv) {
  const auto x = kernelgen::as_matrix<Eigen::half>(inputs[0]);
  const auto w = kernelgen::as_matrix<Eigen::half>(inputs[1]);
  kernelgen::as_matrix(outputs[0]).noalias() = x.cast<float>() * w.cast<float>().transpose();
}
