#include <kernelgen/reference.hpp>

#include <cmath>
#include <limits>

// Scaled dot-product attention for one head, no mask: o = softmax(q k^T / sqrt(64)) v. q, k, v and o are
// seq x 64, row-major (row i is token i; 64 is the head dimension).
//   s[i, j] = (q[i, :] . k[j, :]) / 8                    the score of query i against key j (8 = sqrt(64))
//   p[i, j] = exp(s[i, j] - max_j' s[i, j']) / sum_j'' exp(s[i, j''] - max_j' s[i, j'])
//                                                        the softmax over the keys j of row i, max-subtracted
//   o[i, :] = sum over j of p[i, j] * v[j, :]            the weighted average of the rows of v
// computed with one division per output, at the end: o[i, :] = (sum_j e[i, j] v[j, :]) / (sum_j e[i, j]) with
// e[i, j] = exp(s[i, j] - max_j' s[i, j']).
// Non-finite values follow from this formula: a NaN or +inf score (or a row whose scores are all -inf) makes
// that whole row of o NaN, so any result is accepted there; a -inf score next to finite ones gets weight 0
// (and 0 times an infinite or NaN value of v is NaN); an infinite value of v with a positive weight gives an
// infinite output. A weight e[i, j] below the smallest normal float is 0: Vulkan lets a device flush
// subnormals, and where it does, such a weight times an infinite value of v is 0 * inf = NaN, not inf.

namespace {

// e[i, j] for every query and key, and each row's sum: the softmax's numerators before the division.
struct Weights {
  kernelgen::RowMajorMatrix e;
  Eigen::VectorXf sum;
};

Weights weights(const Eigen::Map<const kernelgen::RowMajorMatrix>& q,
                const Eigen::Map<const kernelgen::RowMajorMatrix>& k) {
  Weights w{(q * k.transpose()) * (1.0f / std::sqrt(64.0f)), Eigen::VectorXf(q.rows())};
  for (Eigen::Index i = 0; i < w.e.rows(); ++i) {
    auto row = w.e.row(i).array();
    const float max = row.maxCoeff<Eigen::PropagateNaN>();
    row = (row - max).exp();
    row = (row < std::numeric_limits<float>::min()).select(0.0f, row);
    w.sum[i] = row.sum();
  }
  return w;
}

}  // namespace

KERNELGEN_REFERENCE(attention) {
  const auto q = kernelgen::as_matrix(inputs[0]);
  const auto k = kernelgen::as_matrix(inputs[1]);
  const auto v = kernelgen::as_matrix(inputs[2]);
  const Weights w = weights(q, k);
  auto o = kernelgen::as_matrix(outputs[0]);
  o.noalias() = w.e * v;
  o.array().colwise() /= w.sum.array();
}

// Validation's terms (kernelgen/reference_types.hpp): how far rounding may move o[i, d], in units of rtol.
// A score is a dot product: a kernel that sums it in another order, or pre-scales q, is off by up to a few
// hundred float epsilons times S[i, j] = sum_d |q[i, d] k[j, d]| / 8, what it adds up. To first order a score
// error ds[j] moves the output by sum_j p[i, j] ds[j] (v[j, d] - o[i, d]), so
//   terms[i, d] = sum_j p[i, j] |v[j, d]|  +  sum_j p[i, j] S[i, j] |v[j, d] - o[i, d]|
// The first sum is what the weighted average adds up (the rounding of exp, of the sum and of the division,
// relative to it); the second is the softmax's sensitivity to its scores. It is small where one key dominates
// (its |v - o| is near 0, the others' p near 0) or the scores are small, and large where two keys' scores are
// nearly equal and large: in the mixed case scores reach 1e7, where floats are 1 apart, and two keys 1.6 apart
// share the weight in a ratio no float computation fixes (the reference on absolute inputs bounded that by
// 1.4e-5 where a correct kernel was off by 1.4).
KERNELGEN_TERMS(attention) {
  const auto q = kernelgen::as_matrix(inputs[0]);
  const auto k = kernelgen::as_matrix(inputs[1]);
  const auto v = kernelgen::as_matrix(inputs[2]);
  const Weights w = weights(q, k);
  const kernelgen::RowMajorMatrix p = w.e.array().colwise() / w.sum.array();
  const kernelgen::RowMajorMatrix o = p * v;
  const kernelgen::RowMajorMatrix sensitivity =
      p.cwiseProduct((q.cwiseAbs() * k.cwiseAbs().transpose()) * (1.0f / std::sqrt(64.0f)));
  auto terms = kernelgen::as_matrix(outputs[0]);
  terms.noalias() = p * v.cwiseAbs();
  for (Eigen::Index i = 0; i < terms.rows(); ++i)
    terms.row(i) += sensitivity.row(i) * (v.rowwise() - o.row(i)).cwiseAbs();
}
