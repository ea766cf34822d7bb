#include <kernelgen/reference.hpp>

#include <cmath>

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
// infinite output.
KERNELGEN_REFERENCE(attention) {
  const auto q = kernelgen::as_matrix(inputs[0]);
  const auto k = kernelgen::as_matrix(inputs[1]);
  const auto v = kernelgen::as_matrix(inputs[2]);
  kernelgen::RowMajorMatrix e = (q * k.transpose()) * (1.0f / std::sqrt(64.0f));
  Eigen::VectorXf sum(e.rows());
  for (Eigen::Index i = 0; i < e.rows(); ++i) {
    const float max = e.row(i).maxCoeff<Eigen::PropagateNaN>();
    e.row(i) = (e.row(i).array() - max).exp().matrix();
    sum[i] = e.row(i).sum();
  }
  auto o = kernelgen::as_matrix(outputs[0]);
  o.noalias() = e * v;
  o.array().colwise() /= sum.array();
}
