#include <kernelgen/reference.hpp>

#include <cmath>
#include <limits>

// Flash-decoding's second pass: the splits of decode_attention_split added up into one query's output per head.
//   partial is heads x splits x head_dim f32, lse heads x splits f32, o heads x head_dim.
//   M = max over s of lse[h, s];  w[s] = exp(lse[h, s] - M), 0 below the smallest normal float;
//   o[h, :] = (sum over s, in order, of w[s] * partial[h, s, :]) / (sum over s of w[s])
// Where every lse is -inf (no split had a key) o is 0. A NaN
// lse makes the row NaN; the rest follows from the formulas (an +inf lse: inf - inf, NaN).
// KERNELGEN_TERMS: sum_s (w[s] / W) (|partial[s]| + (1 + |lse[s] - M|) |partial[s] - o|), W = sum w: the weights'
// rounding (exp's own and its argument's) moves o by that much times rtol.
namespace {

void combine(std::span<const kernelgen::ConstTensorView> inputs, std::span<const kernelgen::TensorView> outputs,
             bool terms) {
  const auto& partial = inputs[0];
  const int64_t heads = partial.dim(0), splits = partial.dim(1), head_dim = partial.dim(2);
  const float* ps = partial.as<float>();
  const float* lse = inputs[1].as<float>();
  float* o = outputs[0].as<float>();
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t row = 0; row < heads; ++row) {
    const float* l = lse + row * splits;
    const float* p = ps + row * splits * head_dim;
    float* out = o + row * head_dim;
    float max = -std::numeric_limits<float>::infinity();
    bool nan = false;
    for (int64_t s = 0; s < splits; ++s) {
      nan = nan || std::isnan(l[s]);
      max = std::max(max, l[s]);
    }
    for (int64_t d = 0; d < head_dim; ++d) {
      if (nan) {
        out[d] = terms ? 0.0f : kNan;
        continue;
      }
      if (max == -std::numeric_limits<float>::infinity()) {
        out[d] = 0.0f;
        continue;
      }
      float total = 0.0f, sum = 0.0f;
      for (int64_t s = 0; s < splits; ++s) {
        float w = std::exp(l[s] - max);
        if (w < std::numeric_limits<float>::min()) w = 0.0f;
        total += w;
        sum += w * p[s * head_dim + d];
      }
      const float value = sum / total;
      if (!terms) {
        out[d] = value;
        continue;
      }
      float bound = 0.0f;
      for (int64_t s = 0; s < splits; ++s) {
        float w = std::exp(l[s] - max);
        if (w < std::numeric_limits<float>::min()) w = 0.0f;
        const float x = p[s * head_dim + d];
        bound += w / total * (std::fabs(x) + (1.0f + std::fabs(l[s] - max)) * std::fabs(x - value));
      }
      out[d] = bound;
    }
  }
}

}  // namespace

KERNELGEN_REFERENCE(decode_attention_combine) { combine(inputs, outputs, false); }

KERNELGEN_TERMS(decode_attention_combine) { combine(inputs, outputs, true); }
