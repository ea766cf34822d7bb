#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

// A decode step's attention: one new token's query per head over an f16 KV cache of ctx positions, every position
// attended to (the query sits at the cache's last one). q and o are heads x 128 f16; k_cache and v_cache are
// ctx x heads x 128 f16, row-major (position-major, as a cache appended one token at a time, the decoder block's
// layout: examples/decoder_block).
//   s[j] = (q[h, :] . k_cache[j, h, :]) / sqrt(128)     in f32 (the products of f16 values are exact in f32)
//   m    = max over j of s[j]
//   e[j] = exp(s[j] - m), 0 below the smallest normal float
//   o[h, :] = half(sum_j e[j] v_cache[j, h, :] / sum_j e[j])     rounded once to f16
// Non-finite values follow from the formula: a NaN or +inf score, or scores all -inf, make the head's row NaN; an
// infinite value of v with a positive weight gives an infinite output. A weight below the smallest normal float is
// 0, as a GPU that flushes denormals computes it (such a weight moves a finite result by under 2^-126 of its value
// row).

namespace {

constexpr int64_t kDim = 128;
constexpr float kSmallestNormal = std::numeric_limits<float>::min();

// Head h's scores over every key, and what each one's dot product adds up (sum_d |q k|, times the scale).
struct Scores {
  std::vector<float> s, magnitude;
};

Scores scores(std::span<const kernelgen::ConstTensorView> inputs, int64_t h) {
  const int64_t heads = inputs[0].dim(0), ctx = inputs[1].dim(0);
  const Eigen::half* q = inputs[0].as<const Eigen::half>() + h * kDim;
  const Eigen::half* k = inputs[1].as<const Eigen::half>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(kDim));
  Scores out{std::vector<float>(ctx), std::vector<float>(ctx)};
  for (int64_t j = 0; j < ctx; ++j) {
    const Eigen::half* kj = k + (j * heads + h) * kDim;
    float dot = 0.0f, absolute = 0.0f;
    for (int64_t d = 0; d < kDim; ++d) {
      const float product = static_cast<float>(q[d]) * static_cast<float>(kj[d]);
      dot += product;
      absolute += std::fabs(product);
    }
    out.s[j] = dot * scale;
    out.magnitude[j] = absolute * scale;
  }
  return out;
}

// The softmax's weights before the division, and their sum; NaN where a score is NaN or the max is infinite.
std::vector<float> weights(const std::vector<float>& s, float& sum) {
  float max = -std::numeric_limits<float>::infinity();
  bool nan = false;
  for (float x : s) {
    nan = nan || std::isnan(x);
    max = std::max(max, x);
  }
  std::vector<float> e(s.size());
  sum = 0.0f;
  for (size_t j = 0; j < s.size(); ++j) {
    e[j] = nan ? std::numeric_limits<float>::quiet_NaN() : std::exp(s[j] - max);
    if (e[j] < kSmallestNormal) e[j] = 0.0f;
    sum += e[j];
  }
  return e;
}

// v_cache[j, h, d] as a float.
float value(const kernelgen::ConstTensorView& v, int64_t heads, int64_t j, int64_t h, int64_t d) {
  return static_cast<float>(v.as<const Eigen::half>()[(j * heads + h) * kDim + d]);
}

}  // namespace

KERNELGEN_REFERENCE(decode_attention_f16) {
  const int64_t heads = inputs[0].dim(0), ctx = inputs[1].dim(0);
  Eigen::half* o = outputs[0].as<Eigen::half>();
  for (int64_t h = 0; h < heads; ++h) {
    float sum = 0.0f;
    const std::vector<float> e = weights(scores(inputs, h).s, sum);
    for (int64_t d = 0; d < kDim; ++d) {
      float total = 0.0f;
      for (int64_t j = 0; j < ctx; ++j) total += e[j] * value(inputs[2], heads, j, h, d);
      o[h * kDim + d] = static_cast<Eigen::half>(total / sum);
    }
  }
}

// Validation's terms: how far rounding may move o[h, d], in units of f16's default rtol (1e-3). The first part is
// what the weighted average adds up, sum_j p |v|; the second what the scores' own rounding may move (a kernel sums
// each dot product in another order, and splits the keys into ranges whose maxima it rescales): a score off by
// about 1e-5 of what it adds up moves its weight by p (exp(2 delta) - 1), capped at 1, and the output by that
// times |v - o|, as attention_f16's terms (ops/attention_f16/reference.cpp) bound it.
KERNELGEN_TERMS(decode_attention_f16) {
  constexpr float kRtol = 1e-3f, kScoreError = 1e-5f;
  const int64_t heads = inputs[0].dim(0), ctx = inputs[1].dim(0);
  Eigen::half* t = outputs[0].as<Eigen::half>();
  for (int64_t h = 0; h < heads; ++h) {
    const Scores s = scores(inputs, h);
    float sum = 0.0f;
    const std::vector<float> e = weights(s.s, sum);
    float max = -std::numeric_limits<float>::infinity();
    for (float x : s.s) max = std::max(max, x);
    for (int64_t d = 0; d < kDim; ++d) {
      float o = 0.0f, term = 0.0f;
      for (int64_t j = 0; j < ctx; ++j) o += e[j] / sum * value(inputs[2], heads, j, h, d);
      for (int64_t j = 0; j < ctx; ++j) {
        const float v = value(inputs[2], heads, j, h, d), p = e[j] / sum;
        term += p * std::fabs(v);
        const float twice_delta = 2.0f * kScoreError * s.magnitude[j];
        if (!std::isfinite(twice_delta)) continue;  // an infinite input: the score is exact (+-inf, NaN)
        const float change = twice_delta < 1.0f
                                 ? p * std::expm1(twice_delta)
                                 : std::min(1.0f, std::exp(std::min(0.0f, s.s[j] - max + twice_delta)) / sum);
        if (change > 0.0f) term += (change / kRtol) * std::fabs(v - o);
      }
      t[h * kDim + d] = static_cast<Eigen::half>(term);
    }
  }
}
