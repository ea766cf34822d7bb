#include "block_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace block {
namespace {

constexpr double kUnit = 0x1.0p-24;     // f32's unit roundoff: a rounding moves a value by at most this, relatively
constexpr double kExpUlp = 0x1.0p-23;   // an f32 ulp relative to its value, at most
constexpr double kExpUlps = 3.0;        // Vulkan's exp: 3 + 2 |x| ulp (the SPIR-V precision table)
constexpr double kHalfUnit = 0x1.0p-11;   // f16's unit roundoff
constexpr double kSmallestHalf = 0x1.0p-24, kSmallestNormalHalf = 0x1.0p-14;

// The spacing of f16 values around a magnitude a (subnormals: 2^-24); infinite past f16's range.
double f16_spacing(double a) {
  if (a >= 65520.0) return std::numeric_limits<double>::infinity();
  if (a < 0x1.0p-14) return 0x1.0p-24;
  return std::ldexp(1.0, static_cast<int>(std::floor(std::log2(a))) - 10);
}

Matrix half_rounded(const Matrix& x) { return x.cast<Eigen::half>().cast<float>(); }

// A stage rounded to f16 (a projection's input, or what kv_append writes to the cache): an input off by e may
// round to the neighbouring f16 value, so off by e plus one f16 spacing wherever e > 0.
Stage half_stage(const std::string& name, const Stage& in) {
  Stage out{name, half_rounded(in.value), Matrix(in.value.rows(), in.value.cols())};
  for (Eigen::Index i = 0; i < in.value.size(); ++i) {
    const double e = in.bound.data()[i];
    out.bound.data()[i] = e > 0 ? static_cast<float>(e + f16_spacing(std::abs(in.value.data()[i]) + e)) : 0.0f;
  }
  return out;
}

// y = half(x) w^T: to_half, then ops/linear (a prefill) or ops/qkv_gemv (a decode step). Two roundings of the
// sum (the GPU's and the reference's), each at most k u times the sum of the products' magnitudes, and the rounded
// input's bound (half_stage) through |w|.
Stage linear(const std::string& name, const Stage& in, const HalfMatrix& w) {
  const Matrix wf = w.cast<float>();
  const Matrix wa = wf.cwiseAbs();
  const Stage xh = half_stage("", in);
  const double k = static_cast<double>(in.value.cols());
  Stage out{name, xh.value * wf.transpose(), Matrix()};
  out.bound = xh.bound * wa.transpose() +
              static_cast<float>(2.0 * k * kUnit) * ((xh.value.cwiseAbs() + xh.bound) * wa.transpose());
  // An infinite input bound (past f16's range) times a zero weight is NaN in the product: no bound there.
  out.bound = out.bound.unaryExpr([](float b) { return std::isnan(b) ? std::numeric_limits<float>::infinity() : b; });
  return out;
}

// ops/rmsnorm/reference.cpp: y = x / sqrt(mean(x^2) + eps) * w. The GPU sums n squares in f32 (at most n u of
// the sum, halved by the square root), then a square root, a division and two products: (n / 2 + 6) u of |y|.
// An input error e moves y by |w| / rms (e_c + |x_c| sum_l |x_l| e_l / (n rms^2)).
Stage rmsnorm(const std::string& name, const Stage& in, const Eigen::VectorXf& w) {
  const Eigen::Index n = in.value.cols();
  Stage out{name, Matrix(in.value.rows(), n), Matrix(in.value.rows(), n)};
  for (Eigen::Index r = 0; r < in.value.rows(); ++r) {
    double ms = 0.0, spread = 0.0;
    for (Eigen::Index c = 0; c < n; ++c) {
      ms += static_cast<double>(in.value(r, c)) * in.value(r, c);
      spread += std::abs(static_cast<double>(in.value(r, c))) * in.bound(r, c);
    }
    ms /= static_cast<double>(n);
    const double rms = std::sqrt(ms + 1e-6);
    for (Eigen::Index c = 0; c < n; ++c) {
      const double x = in.value(r, c);
      const float y = static_cast<float>(x / rms * w[c]);
      out.value(r, c) = y;
      out.bound(r, c) = static_cast<float>(
          std::abs(w[c]) / rms * (in.bound(r, c) + std::abs(x) * spread / (static_cast<double>(n) * rms * rms)) +
          (static_cast<double>(n) / 2.0 + 6.0) * kUnit * std::abs(y));
    }
  }
  return out;
}

// The catalog's rope: y = x c + x' s per pair; two roundings of a sum of two products on each side.
Stage rope(const std::string& name, const Stage& in, const RopeTables& t, int64_t heads, int64_t pairs) {
  Stage out{name, Matrix(in.value.rows(), in.value.cols()), Matrix(in.value.rows(), in.value.cols())};
  for (int64_t tok = 0; tok < in.value.rows(); ++tok)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t p = 0; p < 2; ++p)
        for (int64_t i = 0; i < pairs; ++i) {
          const int64_t at = (h * 2 + p) * pairs + i, other = (h * 2 + (1 - p)) * pairs + i;
          const int64_t table = (tok * 2 + p) * pairs + i;
          const float c = t.cos[table], s = t.sin[table];
          const float x = in.value(tok, at), x2 = in.value(tok, other);
          out.value(tok, at) = x * c + x2 * s;
          out.bound(tok, at) = in.bound(tok, at) * std::abs(c) + in.bound(tok, other) * std::abs(s) +
                               static_cast<float>(4.0 * kUnit) * (std::abs(x * c) + std::abs(x2 * s));
        }
  return out;
}

// ops/causal_attention/reference.cpp and ops/decode_attention_split/reference.cpp, per head and query i (at position
// shift + i of the keys, shift = keys - queries) over keys j up to its position, with p_j the softmax weights:
//   a score is off by its inputs' errors through the dot product, two roundings of a sum of head_dim products,
//   and the scale (8 u of |s|); each exp is off by (3 + 2|s_j - m|) ulp, and an online softmax rescales its sums
//   by at most i + 1 further exps whose arguments add up to at most the scores' range: all of it an error ds_j
//   in the score; an output then moves by sum_j p_j e_v + sum_j p_j |v_j - o| (ds_j + sum_l p_l ds_l), plus the
//   roundings of the two sums of i + 1 terms and of the division. With `half_weights` (a prefill's attention on
//   tensor cores) each weight may be rounded to f16 as well: by 2^-11 of itself, or by up to 2^-24 where it lies
//   below f16's normal range (2^-14 of the row's largest), so the output moves by up to 2^-11 p_j |v_j|, or 2^-24
//   |v_j| / sum_l e_l, more per key.
Stage causal_attention(const std::string& name, const Stage& q, const Stage& k, const Stage& v, int64_t heads,
                       bool half_weights) {
  const int64_t tokens = q.value.rows(), head_dim = q.value.cols() / heads;
  const int64_t shift = k.value.rows() - tokens;  // query i sits at position shift + i of the keys
  Stage out{name, Matrix(tokens, q.value.cols()), Matrix(tokens, q.value.cols())};
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  std::vector<double> ds(k.value.rows()), p(k.value.rows());
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < tokens; ++i) {
      const int64_t base = h * head_dim;
      const int64_t last = shift + i;  // the last key this query sees
      float max = -std::numeric_limits<float>::infinity(), min = std::numeric_limits<float>::infinity();
      std::vector<float> score(last + 1);
      for (int64_t j = 0; j <= last; ++j) {
        float dot = 0.0f;
        double magnitude = 0.0, propagated = 0.0;
        for (int64_t d = 0; d < head_dim; ++d) {
          const float qd = q.value(i, base + d), kd = k.value(j, base + d);
          dot += qd * kd;
          magnitude += std::abs(static_cast<double>(qd) * kd);
          propagated += std::abs(kd) * q.bound(i, base + d) + std::abs(qd) * k.bound(j, base + d);
        }
        score[j] = dot * scale;
        max = std::max(max, score[j]);
        min = std::min(min, score[j]);
        ds[j] = scale * (propagated + 2.0 * static_cast<double>(head_dim) * kUnit * magnitude) +
                8.0 * kUnit * std::abs(score[j]);
      }
      const double range = static_cast<double>(max) - min;
      float total = 0.0f;
      std::vector<float> e(last + 1);
      for (int64_t j = 0; j <= last; ++j) {
        e[j] = std::exp(score[j] - max);
        total += e[j];
        ds[j] += ((kExpUlps + 2.0 * (static_cast<double>(max) - score[j])) +
                  (kExpUlps * static_cast<double>(last + 1) + 2.0 * range)) * kExpUlp;
      }
      double mean_ds = 0.0;
      for (int64_t j = 0; j <= last; ++j) {
        p[j] = static_cast<double>(e[j]) / total;
        mean_ds += p[j] * ds[j];
      }
      for (int64_t d = 0; d < head_dim; ++d) {
        float sum = 0.0f;
        for (int64_t j = 0; j <= last; ++j) sum += e[j] * v.value(j, base + d);
        const float o = sum / total;
        double bound = 0.0, spread = 0.0;
        for (int64_t j = 0; j <= last; ++j) {
          const double vj = v.value(j, base + d);
          bound += p[j] * v.bound(j, base + d) + p[j] * std::abs(vj - o) * (ds[j] + mean_ds);
          spread += p[j] * std::abs(vj);
          if (half_weights)
            bound += e[j] >= kSmallestNormalHalf ? kHalfUnit * p[j] * std::abs(vj)
                                                 : kSmallestHalf * std::abs(vj) / total;
        }
        bound += 2.0 * static_cast<double>(last + 1) * kUnit * (spread + std::abs(o)) + 4.0 * kUnit * std::abs(o);
        out.value(i, base + d) = o;
        out.bound(i, base + d) = static_cast<float>(bound);
      }
    }
  return out;
}

// ops/linear_residual/reference.cpp: the product's bound, the residual's, and the add's rounding on each side.
Stage linear_residual(const std::string& name, const Stage& x, const HalfMatrix& w, const Stage& r) {
  Stage out = linear(name, x, w);
  out.value += r.value;
  out.bound += r.bound + static_cast<float>(2.0 * kUnit) * out.value.cwiseAbs();
  return out;
}

// ops/gate_up_swiglu/reference.cpp: y = g * (1 / (1 + exp(-g))) * u. Errors in g and u move y by
// |silu'(g)| |u| e_g + |silu(g)| e_u; the exp's (3 + 2|g|) ulp move silu(g) by |g| s (1 - s) of it; four
// roundings on each side.
Stage gate_up_swiglu(const std::string& name, const Stage& x, const HalfMatrix& wg, const HalfMatrix& wu) {
  const Stage g = linear("gate", x, wg), u = linear("up", x, wu);
  Stage out{name, Matrix(g.value.rows(), g.value.cols()), Matrix(g.value.rows(), g.value.cols())};
  for (Eigen::Index i = 0; i < g.value.size(); ++i) {
    const float gi = g.value.data()[i], ui = u.value.data()[i];
    const float sigma = 1.0f / (1.0f + std::exp(-gi));
    const float y = gi * sigma * ui;
    const double dsilu = std::abs(sigma * (1.0 + gi * (1.0 - sigma)));
    out.value.data()[i] = y;
    out.bound.data()[i] = static_cast<float>(
        dsilu * std::abs(ui) * g.bound.data()[i] + std::abs(gi * sigma) * u.bound.data()[i] +
        std::abs(gi) * sigma * (1.0 - sigma) * (kExpUlps + 2.0 * std::abs(gi)) * kExpUlp * std::abs(ui) +
        8.0 * kUnit * std::abs(y));
  }
  return out;
}

}  // namespace

std::vector<Stage> reference_block(const BlockWeights& w, const Matrix& x, int64_t past, int64_t tokens,
                                   const StageSource& read) {
  const BlockConfig& c = w.config;
  const int64_t ctx = past + tokens;
  // The whole chain runs the block over every position; a stage alone over the step's rows.
  const int64_t first = read ? past : 0, rows = read ? tokens : ctx;
  if (x.rows() != rows)
    throw std::invalid_argument("reference_block: x has " + std::to_string(x.rows()) + " rows, expected " +
                                std::to_string(rows));
  const RopeTables tables = rope_tables(c, first, rows);
  std::vector<Stage> stages;
  stages.reserve(13);
  auto in = [&](const std::string& name) -> Stage {
    if (name == "x") return {"x", x, Matrix::Zero(x.rows(), x.cols())};
    if (read) return read(name);
    for (const Stage& s : stages)
      if (s.name == name) return s;
    throw std::logic_error("reference_block: no stage " + name + " before the one that reads it");
  };
  // The KV cache after this step's append: the rows before the step as the cache holds them (the GPU's, alone),
  // then the step's keys and values rounded to f16.
  auto cache = [&](const std::string& name, const std::string& rows_from) {
    Stage appended = half_stage(name, in(rows_from));
    if (!read || past == 0) return appended;
    Stage all = read(name);
    all.value.bottomRows(tokens) = appended.value;
    all.bound.bottomRows(tokens) = appended.bound;
    return all;
  };
  stages.push_back(rmsnorm("attention_norm", in("x"), w.attention_norm));
  stages.push_back(linear("q", in("attention_norm"), w.q));
  stages.push_back(linear("k", in("attention_norm"), w.k));
  stages.push_back(linear("v", in("attention_norm"), w.v));
  stages.push_back(rope("q_rope", in("q"), tables, c.heads, c.head_dim() / 2));
  stages.push_back(rope("k_rope", in("k"), tables, c.heads, c.head_dim() / 2));
  stages.push_back(cache("k_cache", "k_rope"));
  stages.push_back(cache("v_cache", "v"));
  // Both attend to the f16 cache. A prefill's attention (causal_attention) takes q in f16 too (to_half) and
  // may round its weights to f16 (tensor cores); a decode step's weights are f32, and so are its q and output
  // in decode_attention_split and _combine, where decode_attention_f16 (heads of 128) takes q in f16 and
  // rounds its output to f16.
  if (past == 0)
    stages.push_back(causal_attention("attention", half_stage("", in("q_rope")), stages[6], stages[7], c.heads, true));
  else if (decodes_attention_in_f16(c))
    stages.push_back(half_stage("attention", causal_attention("", half_stage("", in("q_rope")), stages[6],
                                                              stages[7], c.heads, false)));
  else
    stages.push_back(causal_attention("attention", in("q_rope"), stages[6], stages[7], c.heads, false));
  stages.push_back(linear_residual("attention_out", in("attention"), w.o, in("x")));
  stages.push_back(rmsnorm("mlp_norm", in("attention_out"), w.mlp_norm));
  stages.push_back(gate_up_swiglu("mlp_gate_up", in("mlp_norm"), w.gate, w.up));
  stages.push_back(linear_residual("output", in("mlp_gate_up"), w.down, in("attention_out")));
  if (!read)  // the step's rows of every stage but the cache's
    for (Stage& s : stages)
      if (s.name != "k_cache" && s.name != "v_cache") {
        s.value = Matrix(s.value.bottomRows(tokens));
        s.bound = Matrix(s.bound.bottomRows(tokens));
      }
  return stages;
}

}  // namespace block
