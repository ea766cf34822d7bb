#include <kernelgen/reference.hpp>

#include <cmath>
#include <numbers>

// A linear layer with its activation fused: c = gelu(a b + bias), all row-major.
//   a is m x k, b is k x n, bias has n entries (one per column of c), c is m x n:
//   x[i, j] = sum over l of a[i, l] * b[l, j], plus bias[j]
//   c[i, j] = gelu(x[i, j])
// gelu is the same formula as the catalog's gelu op (ops/gelu/reference.cpp), GELU's tanh approximation
// (not the exact x * Phi(x) with erf):
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// Non-finite values follow IEEE arithmetic through these formulas: x[i, j] is NaN where a NaN of row i of a
// or of column j of b enters the sum (or an infinity meets a 0, or +inf meets -inf), and then c[i, j] is
// NaN; x = +inf gives +inf; x = -inf gives NaN (-inf times 1 + tanh(-inf) = 0), so any result is accepted
// there. For very negative finite x the result is 0 (or -0), and for very large x it is x.
KERNELGEN_REFERENCE(matmul_bias_gelu) {
  const auto a = kernelgen::as_matrix(inputs[0]);
  const auto b = kernelgen::as_matrix(inputs[1]);
  const auto bias = kernelgen::as_array(inputs[2]);
  kernelgen::RowMajorMatrix x = a * b;
  x.rowwise() += bias.matrix().transpose();
  const float sqrt_2_over_pi = std::sqrt(2.0f / std::numbers::pi_v<float>);
  const auto xa = x.array();
  kernelgen::as_matrix(outputs[0]) =
      (0.5f * xa * (1.0f + (sqrt_2_over_pi * (xa + 0.044715f * xa.cube())).tanh())).matrix();
}
