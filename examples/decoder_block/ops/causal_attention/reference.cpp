#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

// Causal multi-head self-attention over a prompt (LLaMA's prefill), after the rotary embedding, on f16 inputs as
// the tensor cores take them:
//   q, k and v are tokens x heads x head_dim f16, o the same in f32, row-major (token t's head h is the head_dim
//   values at (t * heads + h) * head_dim, the layout of a [tokens, hidden] projection); token t sits at position t.
// For each head h and query i, over the keys j <= i (a key after its query is masked out):
//   s[j]    = (q[i, h, :] . k[j, h, :]) * (1 / sqrt(head_dim))    the dot product in float, then the scale
//   e[j]    = exp(s[j] - max over j' <= i of s[j'])              0 below 2^-24, f16's smallest value
//   o[i, h] = (sum over j <= i of e[j] * v[j, h, :]) / (sum over j <= i of e[j])
// one division per output, at the end. The products of f16 values are exact in f32. Non-finite values follow
// from these formulas: a NaN or +inf score (or a row whose scores are all -inf) makes that output row NaN; a -inf
// score next to finite ones gets weight 0 (and 0 times an infinite or NaN value is NaN); an infinite value with a
// positive weight gives an infinite output. A weight below 2^-24 is 0 here. A kernel may differ from that by up to
// 2^-24 of the weight (relative to the row's sum): one that rounds its weights to f16 for the tensor cores keeps
// those in [2^-25, 2^-24) as 2^-24, and one that flushes them against a running max rather than the row's keeps
// some; the terms below allow it.
// KERNELGEN_TERMS gives validation each output's terms (kernelgen/reference_types.hpp), in units of the rtol of
// TOLERANCE in the decoder's CMakeLists.txt (6e-4), with p[j] = e[j] / (sum of e):
//   terms[i, h, d] = sum_j p[j] |v[j, h, d]|                  the average's magnitude: each weight rounded to
//                                                             f16 (2^-11 of itself, 4.9e-4) and the f32 sums
//                  + sum_j change[j] |v[j, h, d] - o[i, h, d]| / 6e-4
//                  + sum_{j: e[j] < 2^-14} 2^-24 |v[j, h, d]| / (sum of e) / 6e-4
// The second part is how far the scores' own rounding may move the output, as in the catalog's attention_f16
// (ops/attention_f16/reference.cpp in kernelgen's repository): a score is a dot product summed in f32 in another
// order than the reference's (a matrix product here), so it may be off by up to about 1e-5 of what it adds up,
// S[j] = sum_d |q k| / sqrt(head_dim). Two scores each off by delta move a weight by at most
//   change[j] = min(1, p[j] (exp(2 delta) - 1))   (about 2 delta p[j] for small delta),
// in the exact form where scores are huge and 2 delta is not small: there a key far below the max in weight, but
// within 2 delta of it in score, may take the weight from it in any kernel. The third part is for weights below
// f16's normal range, which round to within 2^-24 of themselves (or to 0). A -inf score (an infinite key) is a
// weight of exactly 0 in every kernel and adds nothing.
namespace {

constexpr float kRtol = 6e-4f;                // TOLERANCE's rtol
constexpr float kScoreError = 1e-5f;          // of what a score adds up
constexpr float kSmallestHalf = 0x1.0p-24f;   // f16's smallest subnormal
constexpr float kSmallestNormalHalf = 0x1.0p-14f;

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// Head h of a tokens x heads x head_dim f16 tensor, as a tokens x head_dim f32 matrix.
Matrix head(const kernelgen::ConstTensorView& t, int64_t h) {
  const int64_t tokens = t.dim(0), heads = t.dim(1), head_dim = t.dim(2);
  using Halves = Eigen::Matrix<Eigen::half, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const Halves, 0, Eigen::OuterStride<>>(t.as<const Eigen::half>() + h * head_dim, tokens,
                                                           head_dim, Eigen::OuterStride<>(heads * head_dim))
      .cast<float>();
}

// The reference's outputs, or with `terms` the terms instead (above). A head's scores are one matrix product
// (in Eigen's order of summation, which the tolerance allows any kernel), its rows' sums are added in key order.
void attend(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs,
            bool terms) {
  const int64_t tokens = inputs[0].dim(0), heads = inputs[0].dim(1), head_dim = inputs[0].dim(2);
  float* out = outputs[0].as<float>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> e(tokens);
  for (int64_t h = 0; h < heads; ++h) {
    const Matrix q = head(inputs[0], h), k = head(inputs[1], h), v = head(inputs[2], h);
    const Matrix score = (q * k.transpose()) * scale;
    const Matrix magnitude = terms ? Matrix((q.cwiseAbs() * k.cwiseAbs().transpose()) * scale) : Matrix();
    for (int64_t i = 0; i < tokens; ++i) {
      const float max = score.row(i).head(i + 1).maxCoeff<Eigen::PropagateNaN>();
      float total = 0.0f;
      Row sum = Row::Zero(head_dim);
      for (int64_t j = 0; j <= i; ++j) {
        e[j] = std::exp(score(i, j) - max);
        if (e[j] < kSmallestHalf) e[j] = 0.0f;
        total += e[j];
        sum += e[j] * v.row(j);
      }
      Eigen::Map<Row> o(out + (i * heads + h) * head_dim, head_dim);
      o = sum / total;
      if (!terms) continue;
      // Each output row's terms need only that row: they replace it in place.
      Row bound = Row::Zero(head_dim);
      for (int64_t j = 0; j <= i; ++j) {
        if (score(i, j) == -kInf) continue;
        const float p = e[j] / total;
        bound += p * v.row(j).cwiseAbs();
        if (e[j] < kSmallestNormalHalf) bound += (kSmallestHalf / total / kRtol) * v.row(j).cwiseAbs();
        const float twice_delta = 2.0f * kScoreError * magnitude(i, j);
        if (!std::isfinite(twice_delta)) continue;  // an infinite input: the reference's score is exact
        const float change = twice_delta < 1.0f
                                 ? p * std::expm1(twice_delta)
                                 : std::min(1.0f, std::exp(std::min(0.0f, score(i, j) - max + twice_delta)) / total);
        if (change > 0.0f) bound += (change / kRtol) * (v.row(j) - o).cwiseAbs();
      }
      o = bound;
    }
  }
}

}  // namespace

KERNELGEN_REFERENCE(causal_attention) { attend(inputs, outputs, false); }

KERNELGEN_TERMS(causal_attention) { attend(inputs, outputs, true); }
