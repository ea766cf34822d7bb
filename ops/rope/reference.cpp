#include <kernelgen/reference.hpp>

// Rotary position embedding as in LLaMA (Hugging Face's rotate_half), applied to x: tokens x heads vectors of
// head_dim = 2 * pairs floats, row-major as [tokens, heads, 2, pairs], each vector's first half
// x1 = x[t, h, 0, :] and second half x2 = x[t, h, 1, :]. With a_i the angle of pair i at token t's position,
//   y1 = x1 * cos(a) - x2 * sin(a),   y2 = x2 * cos(a) + x1 * sin(a)
// The application computes the tables once per position, in the layout of Hugging Face's cos and sin
// ([tokens, head_dim], both halves), with rotate_half's minus sign in the first half of sin:
//   cos[t, 0, i] = cos[t, 1, i] = cos(a_i),   sin[t, 0, i] = -sin(a_i),   sin[t, 1, i] = +sin(a_i)
// so that each output is a sum of two products of inputs:
//   y[t, h, p, i] = x[t, h, p, i] * cos[t, p, i] + x[t, h, 1 - p, i] * sin[t, p, i]
// in float, the product with cos first. (The sign in the table keeps the reference a sum: validation's terms,
// the reference on the inputs' absolute values, is then the magnitude the sum adds up; docs/validation.md.)
KERNELGEN_REFERENCE(rope) {
  const auto& x = inputs[0];
  const int64_t tokens = x.dim(0), heads = x.dim(1), pairs = x.dim(3);
  const float* xs = x.as<float>();
  const float* cos = inputs[1].as<float>();
  const float* sin = inputs[2].as<float>();
  float* y = outputs[0].as<float>();
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t p = 0; p < 2; ++p)
        for (int64_t i = 0; i < pairs; ++i) {
          const int64_t at = ((t * heads + h) * 2 + p) * pairs + i;
          const int64_t other = ((t * heads + h) * 2 + (1 - p)) * pairs + i;
          const int64_t table = (t * 2 + p) * pairs + i;
          y[at] = xs[at] * cos[table] + xs[other] * sin[table];
        }
}
