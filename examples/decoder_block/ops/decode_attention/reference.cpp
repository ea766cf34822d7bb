#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

// Attention of the newest tokens over a KV cache (LLaMA's decode): the cache holds ctx positions, the last
// `tokens` of them the queries' own (their keys and values appended before this op runs).
//   q and o are tokens x heads x head_dim f32; k_cache and v_cache are ctx x heads x head_dim f16, row-major.
//   Query t sits at position p = ctx - tokens + t and attends to the keys j <= p (none when p < 0: o is 0):
//   s[j]    = (q[t, h, :] . float(k_cache[j, h, :])) * (1 / sqrt(head_dim))   the dot product in float
//   e[j]    = exp(s[j] - max over j' <= p of s[j'])
//   o[t, h] = (sum over j <= p of e[j] * float(v_cache[j, h, :])) / (sum over j <= p of e[j])
// one division per output, at the end. Non-finite values follow from these formulas: a NaN or +inf score (or a
// row whose scores are all -inf) makes that output row NaN; a -inf score next to finite ones gets weight 0 (and 0
// times an infinite or NaN value is NaN); an infinite value with a positive weight gives an infinite output. A
// weight below the smallest normal float is 0, as on a device that flushes subnormals (Vulkan allows it).
// KERNELGEN_TERMS gives validation each output's terms: sum_j p[j] |v[j, h, d]| + sum_j p[j] S[j] |v[j, h, d] -
// o[t, h, d]|, S[j] what score j's dot product adds up (times the scale).
namespace {

// The reference's outputs, or with `terms` the terms instead (above).
void attend(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs,
            bool terms) {
  const auto& q = inputs[0];
  const int64_t tokens = q.dim(0), heads = q.dim(1), head_dim = q.dim(2), ctx = inputs[1].dim(0);
  const float* qs = q.as<float>();
  const Eigen::half* ks = inputs[1].as<Eigen::half>();
  const Eigen::half* vs = inputs[2].as<Eigen::half>();
  float* o = outputs[0].as<float>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  std::vector<float> e(std::max<int64_t>(ctx, 1)), magnitude(e.size()), sum(head_dim);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t t = 0; t < tokens; ++t) {
      const int64_t p = ctx - tokens + t;
      float* ot = o + (t * heads + h) * head_dim;
      if (p < 0) {
        std::fill(ot, ot + head_dim, 0.0f);
        continue;
      }
      const float* qt = qs + (t * heads + h) * head_dim;
      float max = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int64_t j = 0; j <= p; ++j) {
        const Eigen::half* kj = ks + (j * heads + h) * head_dim;
        float dot = 0.0f, absolute = 0.0f;
        for (int64_t d = 0; d < head_dim; ++d) {
          dot += qt[d] * static_cast<float>(kj[d]);
          absolute += std::fabs(qt[d] * static_cast<float>(kj[d]));
        }
        e[j] = dot * scale;
        magnitude[j] = absolute * scale;
        nan = nan || std::isnan(e[j]);
        max = std::max(max, e[j]);
      }
      if (nan) max = std::numeric_limits<float>::quiet_NaN();
      float total = 0.0f;
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int64_t j = 0; j <= p; ++j) {
        e[j] = std::exp(e[j] - max);
        if (e[j] < std::numeric_limits<float>::min()) e[j] = 0.0f;
        total += e[j];
        const Eigen::half* vj = vs + (j * heads + h) * head_dim;
        for (int64_t d = 0; d < head_dim; ++d) sum[d] += e[j] * static_cast<float>(vj[d]);
      }
      for (int64_t d = 0; d < head_dim; ++d) ot[d] = sum[d] / total;
      if (!terms) continue;
      // Each output's terms need only that output: they replace it in place.
      for (int64_t d = 0; d < head_dim; ++d) {
        float bound = 0.0f;
        for (int64_t j = 0; j <= p; ++j) {
          const float v = static_cast<float>(vs[(j * heads + h) * head_dim + d]);
          bound += e[j] / total * (std::fabs(v) + magnitude[j] * std::fabs(v - ot[d]));
        }
        ot[d] = bound;
      }
    }
}

}  // namespace

KERNELGEN_REFERENCE(decode_attention) { attend(inputs, outputs, false); }

KERNELGEN_TERMS(decode_attention) { attend(inputs, outputs, true); }
