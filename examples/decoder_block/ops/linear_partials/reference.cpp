#include <kernelgen/reference.hpp>

#include <algorithm>

// A linear layer without bias split along k (split-K), for a prefill's projections where the output alone makes
// too few workgroups for the GPU: p[s] = x[:, ks] w[:, ks]^T for each of `splits` ranges ks of k, range s being
// [s c, min((s + 1) c, k)) with c = ceil(k / splits) (empty past k). sum_partials_residual adds the ranges up.
//   x is m x k f16 (rounded to f16 by to_half), w is n x k f16 ([out, in], torch.nn.Linear's layout), p is
//   splits x m x n f32:
//   p[s, i, j] = sum over l in range s of x[i, l] * w[j, l]
// The products of f16 values are exact in f32; each range's sum is f32 (0 for an empty range). Non-finite values
// follow IEEE arithmetic within their range.
KERNELGEN_REFERENCE(linear_partials) {
  const auto x = kernelgen::as_matrix<Eigen::half>(inputs[0]);
  const auto w = kernelgen::as_matrix<Eigen::half>(inputs[1]);
  const Eigen::Index splits = outputs[0].dim(0), m = x.rows(), k = x.cols(), n = w.rows();
  const Eigen::Index chunk = (k + splits - 1) / splits;
  for (Eigen::Index s = 0; s < splits; ++s) {
    const Eigen::Index begin = std::min(s * chunk, k), length = std::min(begin + chunk, k) - begin;
    Eigen::Map<kernelgen::RowMajorMatrix> p(outputs[0].as<float>() + s * m * n, m, n);
    if (length == 0) {
      p.setZero();
      continue;
    }
    p.noalias() = x.middleCols(begin, length).cast<float>() * w.middleCols(begin, length).cast<float>().transpose();
  }
}
