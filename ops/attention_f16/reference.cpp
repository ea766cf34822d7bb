#include <kernelgen/reference.hpp>

#include <cmath>

// Causal scaled dot-product attention in f16 for each of `heads` heads of dimension 128, as a decoder's prefill
// runs it: o = softmax(q k^T / sqrt(128) + causal mask) v. q, k, v and o are heads x seq x 128 f16, row-major
// (o[h, i, :] is query i of head h).
//   s[i, j] = (q[i, :] . k[j, :]) / sqrt(128)      for keys j <= i (query i attends to keys 0..i), in f32
//   e[i, j] = exp(s[i, j] - max_j' s[i, j'])        over those keys; 0 below 2^-24, f16's smallest value
//   o[i, :] = half(sum_j e[i, j] v[j, :] / sum_j e[i, j])   rounded once to f16
// The products of f16 values are exact in f32; the scores, the softmax and the weighted sum are f32 (as
// FlashAttention computes them, whose weights the tensor cores take in f16: see TOLERANCE in CMakeLists.txt).
// Non-finite values follow from this formula as for the catalog's attention (ops/attention/reference.cpp): a NaN
// or +inf score makes that row of o NaN; an infinite value of v with a positive weight gives an infinite output.
// A weight below 2^-24 is 0: flash attention rounds its weights to f16 for the tensor cores, where they vanish,
// and such a weight times an infinite value of v is then 0 * inf = NaN, not inf (a finite result moves by at most
// 2^-24 of what the values add up, far inside the tolerance).

namespace {

constexpr int kHeadDim = 128;
constexpr float kSmallestHalf = 5.9604644775390625e-08f;  // 2^-24

// Query rows of one head as f32, and e[i, j] with each row's sum: the softmax's numerators before the division.
struct Weights {
  kernelgen::RowMajorMatrix e;
  Eigen::VectorXf sum;
};

Weights weights(const kernelgen::RowMajorMatrix& q, const kernelgen::RowMajorMatrix& k) {
  Weights w{(q * k.transpose()) * (1.0f / std::sqrt(static_cast<float>(kHeadDim))), Eigen::VectorXf(q.rows())};
  for (Eigen::Index i = 0; i < w.e.rows(); ++i) {
    auto row = w.e.row(i).head(i + 1).array();
    const float max = row.maxCoeff<Eigen::PropagateNaN>();
    row = (row - max).exp();
    row = (row < kSmallestHalf).select(0.0f, row);
    w.e.row(i).tail(w.e.cols() - i - 1).setZero();
    w.sum[i] = row.sum();
  }
  return w;
}

// Head h of a heads x seq x 128 f16 tensor, as an f32 seq x 128 matrix.
kernelgen::RowMajorMatrix head(const kernelgen::ConstTensorView& t, Eigen::Index h) {
  const Eigen::Index seq = t.dim(1);
  return Eigen::Map<const kernelgen::RowMajorMatrixOf<Eigen::half>>(t.as<const Eigen::half>() + h * seq * kHeadDim, seq,
                                                                     kHeadDim)
      .cast<float>();
}

// Head h of a heads x seq x 128 f16 output, as a seq x 128 matrix to write.
Eigen::Map<kernelgen::RowMajorMatrixOf<Eigen::half>> head_out(const kernelgen::TensorView& t, Eigen::Index h) {
  const Eigen::Index seq = t.dim(1);
  return {t.as<Eigen::half>() + h * seq * kHeadDim, seq, kHeadDim};
}

}  // namespace

KERNELGEN_REFERENCE(attention_f16) {
  const Eigen::Index heads = inputs[0].dim(0);
  for (Eigen::Index h = 0; h < heads; ++h) {
    const kernelgen::RowMajorMatrix q = head(inputs[0], h), k = head(inputs[1], h), v = head(inputs[2], h);
    const Weights w = weights(q, k);
    kernelgen::RowMajorMatrix out = w.e * v;
    out.array().colwise() /= w.sum.array();
    head_out(outputs[0], h) = out.cast<Eigen::half>();
  }
}

// Validation's terms, as the catalog's attention defines them (ops/attention/reference.cpp): what the weighted
// average adds up, sum_j p |v|, plus the softmax's first-order sensitivity to its scores, sum_j p S |v - o| with
// S = sum_d |q k| / sqrt(128), what a score adds up. A score is summed in f32 whatever the output's dtype, so its
// rounding is float's (a few hundred float epsilons of S, as for the f32 attention, whose rtol is 1e-5), while
// this op's rtol is f16's: the sensitivity enters scaled by 1e-5 / 1e-3 = 0.01, so that it allows what it allows
// the f32 op and no more.
KERNELGEN_TERMS(attention_f16) {
  const Eigen::Index heads = inputs[0].dim(0);
  for (Eigen::Index h = 0; h < heads; ++h) {
    const kernelgen::RowMajorMatrix q = head(inputs[0], h), k = head(inputs[1], h), v = head(inputs[2], h);
    const Weights w = weights(q, k);
    const kernelgen::RowMajorMatrix p = w.e.array().colwise() / w.sum.array();
    const kernelgen::RowMajorMatrix o = p * v;
    const kernelgen::RowMajorMatrix sensitivity =
        p.cwiseProduct((q.cwiseAbs() * k.cwiseAbs().transpose()) * (0.01f / std::sqrt(static_cast<float>(kHeadDim))));
    kernelgen::RowMajorMatrix t = p * v.cwiseAbs();
    for (Eigen::Index i = 0; i < t.rows(); ++i) t.row(i) += sensitivity.row(i) * (v.rowwise() - o.row(i)).cwiseAbs();
    head_out(outputs[0], h) = t.cast<Eigen::half>();
  }
}
