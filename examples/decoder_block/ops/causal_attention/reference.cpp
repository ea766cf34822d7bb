#include <kernelgen/reference.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

// Causal multi-head self-attention over a prompt (LLaMA's prefill), after the rotary embedding:
//   q, k, v and o are tokens x heads x head_dim, row-major (token t's head h is the head_dim floats at
//   (t * heads + h) * head_dim, the layout of a [tokens, hidden] projection); token t sits at position t.
// For each head h and query i, over the keys j <= i (a key after its query is masked out):
//   s[j]    = (q[i, h, :] . k[j, h, :]) * (1 / sqrt(head_dim))    the dot product in float, then the scale
//   e[j]    = exp(s[j] - max over j' <= i of s[j'])
//   o[i, h] = (sum over j <= i of e[j] * v[j, h, :]) / (sum over j <= i of e[j])
// one division per output, at the end. Non-finite values follow from these formulas: a NaN or +inf score (or a
// row whose scores are all -inf) makes that output row NaN; a -inf score next to finite ones gets weight 0 (and
// 0 times an infinite or NaN value is NaN); an infinite value with a positive weight gives an infinite output.
// A weight e[j] below the smallest normal float is 0, as on a device that flushes subnormals (Vulkan allows it).
// KERNELGEN_TERMS gives validation each output's terms (kernelgen/reference_types.hpp), as the catalog's
// attention does (ops/attention/reference.cpp in kernelgen's repository):
//   terms[i, h, d] = sum_j p[j] |v[j, h, d]| + sum_j p[j] S[j] |v[j, h, d] - o[i, h, d]|
// with p[j] = e[j] / (sum of e) and S[j] = sum_d |q[i, h, d] k[j, h, d]| / sqrt(head_dim): the average's own
// magnitude plus the softmax's sensitivity to rounding in its scores, large only where large scores nearly tie.
namespace {

// The reference's outputs, or with `terms` the terms instead (above).
void attend(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs,
            bool terms) {
  const auto& q = inputs[0];
  const int64_t tokens = q.dim(0), heads = q.dim(1), head_dim = q.dim(2);
  const float* qs = q.as<float>();
  const float* ks = inputs[1].as<float>();
  const float* vs = inputs[2].as<float>();
  float* o = outputs[0].as<float>();
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  std::vector<float> e(tokens), magnitude(tokens);
  std::vector<float> sum(head_dim);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < tokens; ++i) {
      const float* qi = qs + (i * heads + h) * head_dim;
      float max = -std::numeric_limits<float>::infinity();
      bool nan = false;
      for (int64_t j = 0; j <= i; ++j) {
        const float* kj = ks + (j * heads + h) * head_dim;
        float dot = 0.0f, absolute = 0.0f;
        for (int64_t d = 0; d < head_dim; ++d) {
          dot += qi[d] * kj[d];
          absolute += std::fabs(qi[d] * kj[d]);
        }
        e[j] = dot * scale;
        magnitude[j] = absolute * scale;
        nan = nan || std::isnan(e[j]);
        max = std::max(max, e[j]);
      }
      if (nan) max = std::numeric_limits<float>::quiet_NaN();
      float total = 0.0f;
      std::fill(sum.begin(), sum.end(), 0.0f);
      for (int64_t j = 0; j <= i; ++j) {
        e[j] = std::exp(e[j] - max);
        if (e[j] < std::numeric_limits<float>::min()) e[j] = 0.0f;
        total += e[j];
        const float* vj = vs + (j * heads + h) * head_dim;
        for (int64_t d = 0; d < head_dim; ++d) sum[d] += e[j] * vj[d];
      }
      float* oi = o + (i * heads + h) * head_dim;
      for (int64_t d = 0; d < head_dim; ++d) oi[d] = sum[d] / total;
      if (!terms) continue;
      // Each output's terms need only that output: they replace it in place.
      for (int64_t d = 0; d < head_dim; ++d) {
        float bound = 0.0f;
        for (int64_t j = 0; j <= i; ++j) {
          const float v = vs[(j * heads + h) * head_dim + d];
          bound += e[j] / total * (std::fabs(v) + magnitude[j] * std::fabs(v - oi[d]));
        }
        oi[d] = bound;
      }
    }
}

}  // namespace

KERNELGEN_REFERENCE(causal_attention) { attend(inputs, outputs, false); }

KERNELGEN_TERMS(causal_attention) { attend(inputs, outputs, true); }
