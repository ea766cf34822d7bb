#include <kernelgen/reference.hpp>

// The q, k and v projections of a decode step's few rows (m from 1 to 16) in one op: q = x wq^T, k = x wk^T,
// v = x wv^T, with the weights in torch.nn.Linear's layout ([out, in]).
//   x is m x k f16 (one row per token: the block's to_half rounds the activation once), wq, wk and wv are n x k
//   f16, q, k and v are m x n f32: q[i, j] = sum over l of x[i, l] * wq[j, l], and k and v alike.
// The products and their sums are f32 (a product of two f16 values is exact in f32). Non-finite values follow
// IEEE arithmetic.
KERNELGEN_REFERENCE(qkv_gemv) {
  const auto x = kernelgen::as_matrix<Eigen::half>(inputs[0]).cast<float>().eval();
  for (int p = 0; p < 3; ++p) {
    const auto w = kernelgen::as_matrix<Eigen::half>(inputs[1 + p]);
    kernelgen::as_matrix(outputs[p]).noalias() = x * w.cast<float>().transpose();
  }
}
