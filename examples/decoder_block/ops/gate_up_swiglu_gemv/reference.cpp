#include <kernelgen/reference.hpp>

// The first half of a LLaMA MLP at a decode step's few rows (m from 1 to 16), fused: the gate and up
// projections of x and SwiGLU's gating between them, y = silu(x wg^T) * (x wu^T), with the weights in
// torch.nn.Linear's layout ([out, in]).
//   x is m x k f16 (one row per token: the block's to_half rounds the activation once), wg and wu are n x k f16
//   (n = the MLP's hidden size), y is m x n f32:
//   g[i, j] = sum over l of x[i, l] * wg[j, l],   u[i, j] = sum over l of x[i, l] * wu[j, l]
//   y[i, j] = g * (1 / (1 + exp(-g))) * u,   in float, in that order
// The products and sums are f32. Non-finite values follow IEEE arithmetic: g = -inf gives NaN (-inf * 0),
// g = +inf gives inf * u.
KERNELGEN_REFERENCE(gate_up_swiglu_gemv) {
  const auto x = kernelgen::as_matrix<Eigen::half>(inputs[0]);
  const auto wg = kernelgen::as_matrix<Eigen::half>(inputs[1]);
  const auto wu = kernelgen::as_matrix<Eigen::half>(inputs[2]);
  const kernelgen::RowMajorMatrix xh = x.cast<float>();
  const kernelgen::RowMajorMatrix g = xh * wg.cast<float>().transpose();
  const kernelgen::RowMajorMatrix u = xh * wu.cast<float>().transpose();
  kernelgen::as_matrix(outputs[0]) = (g.array() * (1.0f / (1.0f + (-g.array()).exp())) * u.array()).matrix();
}
