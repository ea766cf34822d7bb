#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

// Causal scaled dot-product attention in f16 for each of `heads` heads of dimension D, as a decoder's prefill runs
// it: o = softmax(q k^T / sqrt(D) + causal mask) v. q, k, v and o are heads x seq x D f16, row-major (o[h, i, :] is
// query i of head h). Two catalog ops share this file: attention_f16 (D = 128, Llama's heads) and
// attention_f16_d64 (D = 64, GPT-2's and Llama 3.2 1B's); D is read from the inputs' last dimension.
//   s[i, j] = (q[i, :] . k[j, :]) / sqrt(D)        for keys j <= i (query i attends to keys 0..i), in f32
//   e[i, j] = exp(s[i, j] - max_j' s[i, j'])        over those keys; 0 below 2^-24, f16's smallest value
//   o[i, :] = half(sum_j e[i, j] v[j, :] / sum_j e[i, j])   rounded once to f16
// The products of f16 values are exact in f32; the scores, the softmax and the weighted sum are f32 (as
// FlashAttention computes them, whose weights the tensor cores take in f16: see TOLERANCE in CMakeLists.txt).
// Non-finite values follow from this formula as for the catalog's attention (ops/attention/reference.cpp): a NaN
// or +inf score makes that row of o NaN; an infinite value of v with a positive weight gives an infinite output.
// A weight below 2^-24 is 0: flash attention rounds its weights to f16 for the tensor cores, where they vanish,
// and such a weight times an infinite value of v is then 0 * inf = NaN, not inf (each such weight moves a finite
// result by at most 2^-24 of its value row, far inside the tolerance).

namespace {

constexpr float kSmallestHalf = 5.9604644775390625e-08f;  // 2^-24

// The scaled scores s = q k^T / sqrt(D) of one head, every key for every query.
kernelgen::RowMajorMatrix scores(const kernelgen::RowMajorMatrix& q, const kernelgen::RowMajorMatrix& k) {
  return (q * k.transpose()) * (1.0f / std::sqrt(static_cast<float>(q.cols())));
}

// e[i, j] for the keys each query attends to (0 past it) and each row's sum: the softmax before its division.
struct Weights {
  kernelgen::RowMajorMatrix e;
  Eigen::VectorXf sum;
};

Weights weights(kernelgen::RowMajorMatrix s) {
  const Eigen::Index rows = s.rows();
  Weights w{std::move(s), Eigen::VectorXf(rows)};
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

// Head h of a heads x seq x D f16 tensor, as an f32 seq x D matrix.
kernelgen::RowMajorMatrix head(const kernelgen::ConstTensorView& t, Eigen::Index h) {
  const Eigen::Index seq = t.dim(1), dim = t.dim(2);
  return Eigen::Map<const kernelgen::RowMajorMatrixOf<Eigen::half>>(t.as<const Eigen::half>() + h * seq * dim, seq,
                                                                     dim)
      .cast<float>();
}

// Head h of a heads x seq x D f16 output, as a seq x D matrix to write.
Eigen::Map<kernelgen::RowMajorMatrixOf<Eigen::half>> head_out(const kernelgen::TensorView& t, Eigen::Index h) {
  const Eigen::Index seq = t.dim(1), dim = t.dim(2);
  return {t.as<Eigen::half>() + h * seq * dim, seq, dim};
}

// The reference of both ops.
void attention(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs) {
  const Eigen::Index heads = inputs[0].dim(0);
  for (Eigen::Index h = 0; h < heads; ++h) {
    const kernelgen::RowMajorMatrix q = head(inputs[0], h), k = head(inputs[1], h), v = head(inputs[2], h);
    const Weights w = weights(scores(q, k));
    kernelgen::RowMajorMatrix out = w.e * v;
    out.array().colwise() /= w.sum.array();
    head_out(outputs[0], h) = out.cast<Eigen::half>();
  }
}

// Validation's terms: how far rounding may move o[i, d], in units of the ops' rtol (TOLERANCE in their
// CMakeLists.txt, 2e-3). The first part is what the weighted average adds up, sum_j p |v|. The second is how far
// the scores' own rounding may move the output: a score is a dot product summed in f32, by a kernel in another
// order (or from a q pre-scaled in f32) than the reference's, so it may be off by up to about 1e-5 of
// S[i, j] = sum_d |q k| / sqrt(D), what it adds up (a few hundred float epsilons, the allowance of the f32
// attention, ops/attention/reference.cpp). Two scores each off by delta move a weight by at most
//   change[i, j] = min(1, p (exp(2 delta) - 1)),  which is about 2 delta p for small delta,
// and the output by sum_j change[i, j] |v[j, d] - o[i, d]|. The exact form matters where scores are huge (f16
// inputs near 65504 make S up to 5e10, a delta up to 5e5): there a key far below the max in weight, but within
// 2 delta of it in score, may take the weight from it in any kernel, and the first-order term (p S |v - o|, which
// the f32 attention uses) is near 0; the seed that showed it is in tests/generator/catalog_references_test.cpp.
// Such terms may pass f16's range: the element is then unbounded, as where any f16 output's terms overflow.
void terms(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs) {
  constexpr float kRtol = 2e-3f;        // TOLERANCE's rtol
  constexpr float kScoreError = 1e-5f;  // of what a score adds up
  const Eigen::Index heads = inputs[0].dim(0);
  for (Eigen::Index h = 0; h < heads; ++h) {
    const kernelgen::RowMajorMatrix q = head(inputs[0], h), k = head(inputs[1], h), v = head(inputs[2], h);
    const kernelgen::RowMajorMatrix s = scores(q, k);
    const Weights w = weights(s);
    const kernelgen::RowMajorMatrix p = w.e.array().colwise() / w.sum.array();
    const kernelgen::RowMajorMatrix o = p * v;
    const kernelgen::RowMajorMatrix magnitude = scores(q.cwiseAbs(), k.cwiseAbs());
    kernelgen::RowMajorMatrix t = p * v.cwiseAbs();
    for (Eigen::Index i = 0; i < t.rows(); ++i) {
      const float max = s.row(i).head(i + 1).maxCoeff();
      for (Eigen::Index j = 0; j <= i; ++j) {
        const float twice_delta = 2.0f * kScoreError * magnitude(i, j);
        if (!std::isfinite(twice_delta)) continue;  // an infinite input: the reference's score is exact (+-inf, NaN)
        const float change =
            twice_delta < 1.0f ? p(i, j) * std::expm1(twice_delta)
                               : std::min(1.0f, std::exp(std::min(0.0f, s(i, j) - max + twice_delta)) / w.sum[i]);
        if (change > 0.0f) t.row(i) += (change / kRtol) * (v.row(j) - o.row(i)).cwiseAbs();
      }
    }
    head_out(outputs[0], h) = t.cast<Eigen::half>();
  }
}

}  // namespace

KERNELGEN_REFERENCE(attention_f16) { attention(inputs, outputs); }
KERNELGEN_TERMS(attention_f16) { terms(inputs, outputs); }

KERNELGEN_REFERENCE(attention_f16_d64) { attention(inputs, outputs); }
KERNELGEN_TERMS(attention_f16_d64) { terms(inputs, outputs); }
