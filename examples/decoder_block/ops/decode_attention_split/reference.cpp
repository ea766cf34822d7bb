#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

// Flash-decoding's first pass: one query per head (a decode step's token) over an f16 KV cache of ctx
// positions, the positions split into `splits` ranges that separate workgroups take (decode_attention_combine
// adds the ranges up). The query sits at the cache's last position and attends to every key; a step of
// several tokens calls the op once per token, each binding the cache's positions up to its own.
//   q is heads x head_dim f32; k_cache and v_cache are ctx x heads x head_dim f16, row-major; partial is
//   heads x splits x head_dim f32 and lse heads x splits f32.
//   chunk = ceil(ctx / splits); split s holds the positions s * chunk .. min((s + 1) * chunk, ctx) - 1:
//   s[j]    = (q[h, :] . float(k_cache[j, h, :])) * (1 / sqrt(head_dim))
//   m       = max over the split's keys j of s[j]
//   e[j]    = exp(s[j] - m), 0 below the smallest normal float, l = sum of e[j]
//   partial[h, s, :] = (sum e[j] * float(v_cache[j, h, :])) / l,  lse[h, s] = m + log(l)
// A split without a key (more splits than positions) has partial 0 and lse -inf. Non-finite values follow
// from the formulas: a NaN or +inf score, or a split whose scores are all -inf, makes its partial row and lse
// NaN. KERNELGEN_TERMS: partial's as decode_attention's, sum_j (e[j] / l) (|v[j]| + S[j] |v[j] - partial|);
// lse's, sum_j (e[j] / l) S[j] + |m| + |log l|, S[j] what score j's dot product adds up (times the scale).
namespace {

void split_attend(std::span<const kernelgen::ConstTensorView> inputs,
                  std::span<const kernelgen::TensorView> outputs, bool terms) {
  const auto& q = inputs[0];
  const int64_t heads = q.dim(0), head_dim = q.dim(1), ctx = inputs[1].dim(0);
  const int64_t splits = outputs[0].dim(1), chunk = (ctx + splits - 1) / splits;
  const float* qs = q.as<float>();
  const Eigen::half* ks = inputs[1].as<Eigen::half>();
  const Eigen::half* vs = inputs[2].as<Eigen::half>();
  float* partial = outputs[0].as<float>();
  float* lse = outputs[1].as<float>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> e(std::max<int64_t>(chunk, 1)), magnitude(e.size()), sum(head_dim);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t s = 0; s < splits; ++s) {
      const int64_t first = s * chunk, last = std::min(first + chunk, ctx);
      float* out = partial + (h * splits + s) * head_dim;
      float& stat = lse[h * splits + s];
      if (first >= last) {
        std::fill(out, out + head_dim, 0.0f);
        stat = terms ? 0.0f : -std::numeric_limits<float>::infinity();
        continue;
      }
      const float* qt = qs + h * head_dim;
      float max = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int64_t j = first; j < last; ++j) {
        const Eigen::half* kj = ks + (j * heads + h) * head_dim;
        float dot = 0.0f, absolute = 0.0f;
        for (int64_t d = 0; d < head_dim; ++d) {
          dot += qt[d] * static_cast<float>(kj[d]);
          absolute += std::fabs(qt[d] * static_cast<float>(kj[d]));
        }
        e[j - first] = dot * scale;
        magnitude[j - first] = absolute * scale;
        nan = nan || std::isnan(e[j - first]);
        max = std::max(max, e[j - first]);
      }
      if (nan) max = kNan;
      float total = 0.0f;
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int64_t j = first; j < last; ++j) {
        float& w = e[j - first];
        w = std::exp(w - max);
        if (w < std::numeric_limits<float>::min()) w = 0.0f;
        total += w;
        const Eigen::half* vj = vs + (j * heads + h) * head_dim;
        for (int64_t d = 0; d < head_dim; ++d) sum[d] += w * static_cast<float>(vj[d]);
      }
      for (int64_t d = 0; d < head_dim; ++d) out[d] = sum[d] / total;
      stat = max + std::log(total);
      if (!terms) continue;
      // Each output's terms need only that output: they replace it in place.
      float spread = 0.0f;
      for (int64_t j = first; j < last; ++j) spread += e[j - first] / total * magnitude[j - first];
      stat = spread + std::fabs(max) + std::fabs(std::log(total));
      for (int64_t d = 0; d < head_dim; ++d) {
        float bound = 0.0f;
        for (int64_t j = first; j < last; ++j) {
          const float v = static_cast<float>(vs[(j * heads + h) * head_dim + d]);
          bound += e[j - first] / total * (std::fabs(v) + magnitude[j - first] * std::fabs(v - out[d]));
        }
        out[d] = bound;
      }
    }
}

}  // namespace

KERNELGEN_REFERENCE(decode_attention_split) {
  split_attend(inputs, outputs, false);
}

KERNELGEN_TERMS(decode_attention_split) {
  split_attend(inputs, outputs, true);
}
