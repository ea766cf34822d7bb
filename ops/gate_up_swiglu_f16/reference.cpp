#include <kernelgen/reference.hpp>

// The first half of a LLaMA MLP in f16, fused: the gate and up projections of x and SwiGLU's gating between
// them, y = silu(x wg^T) * (x wu^T), with the weights in torch.nn.Linear's layout ([out, in]).
//   x is m x k f16 (one row per token), wg and wu are n x k f16 (n = the MLP's hidden size), y is m x n f16:
//   g[i, j] = sum over l of x[i, l] * wg[j, l],   u[i, j] = sum over l of x[i, l] * wu[j, l]
//   y[i, j] = half(g * (1 / (1 + exp(-g))) * u),   in float, in that order, rounded once to f16
// The products of f16 values are exact in f32 and summed in f32, in any order (as tensor cores do). Non-finite
// values follow IEEE arithmetic: g = -inf gives NaN (-inf * 0), g = +inf gives inf * u; beyond f16's range y is
// +-inf.
KERNELGEN_REFERENCE(gate_up_swiglu_f16) {
  const kernelgen::RowMajorMatrix x = kernelgen::as_matrix<Eigen::half>(inputs[0]).cast<float>();
  const kernelgen::RowMajorMatrix wg = kernelgen::as_matrix<Eigen::half>(inputs[1]).cast<float>();
  const kernelgen::RowMajorMatrix wu = kernelgen::as_matrix<Eigen::half>(inputs[2]).cast<float>();
  const kernelgen::RowMajorMatrix g = x * wg.transpose();
  const kernelgen::RowMajorMatrix u = x * wu.transpose();
  kernelgen::as_matrix<Eigen::half>(outputs[0]) =
      (g.array() * (1.0f / (1.0f + (-g.array()).exp())) * u.array()).matrix().cast<Eigen::half>();
}
