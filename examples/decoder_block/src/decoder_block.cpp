#include "decoder_block.hpp"

#include <stdexcept>

namespace block {
namespace {

std::span<const Eigen::half> elements(const HalfMatrix& m) { return {m.data(), static_cast<size_t>(m.size())}; }
std::span<const float> elements(const Eigen::VectorXf& v) { return {v.data(), static_cast<size_t>(v.size())}; }

}  // namespace

DecoderBlock::DecoderBlock(kernelgen::Device& device, const BlockWeights& w, int64_t tokens, bool timestamps)
    : device_(&device),
      config_(w.config),
      tokens_(tokens),
      timestamps_(timestamps),
      rmsnorm_(device),
      linear_(device),
      rope_(device),
      attention_(device),
      linear_residual_(device),
      gate_up_(device),
      sequence_(device, timestamps ? 16 : 0) {
  const auto T = static_cast<uint32_t>(tokens), H = static_cast<uint32_t>(config_.hidden),
             F = static_cast<uint32_t>(config_.ffn), heads = static_cast<uint32_t>(config_.heads),
             D = static_cast<uint32_t>(config_.head_dim());
  const size_t activations = size_t{T} * H * 4, mlp = size_t{T} * F * 4;
  auto add = [&](const std::string& name, size_t bytes) { buffers_.emplace_back(name, kernelgen::Buffer(device, bytes)); };
  auto upload = [&](const std::string& name, auto values) {
    add(name, values.size_bytes());
    buffer(name).upload(values);
  };
  for (const char* name : {"x", "attention_norm", "q", "k", "v", "q_rope", "k_rope", "attention", "attention_out",
                           "mlp_norm", "output"})
    add(name, activations);
  add("mlp_gate_up", mlp);
  upload("w_attention_norm", elements(w.attention_norm));
  upload("w_mlp_norm", elements(w.mlp_norm));
  upload("w_q", elements(w.q));
  upload("w_k", elements(w.k));
  upload("w_v", elements(w.v));
  upload("w_o", elements(w.o));
  upload("w_gate", elements(w.gate));
  upload("w_up", elements(w.up));
  upload("w_down", elements(w.down));
  const RopeTables tables = rope_tables(config_, 0, tokens);
  upload("cos", std::span<const float>(tables.cos));
  upload("sin", std::span<const float>(tables.sin));

  // The forward pass, in the order of block_reference.cpp.
  auto& b = *this;
  if (timestamps_) sequence_.timestamp();
  rmsnorm_.record(sequence_, {T, H}, b.buffer("x"), b.buffer("w_attention_norm"), b.buffer("attention_norm"));
  dispatched("attention_norm");
  for (const char* p : {"q", "k", "v"}) {
    linear_.record(sequence_, {T, H, H}, b.buffer("attention_norm"), b.buffer(std::string("w_") + p), b.buffer(p));
    dispatched(p);
  }
  rope_.record(sequence_, {T, heads, D / 2}, b.buffer("q"), b.buffer("cos"), b.buffer("sin"), b.buffer("q_rope"));
  dispatched("q_rope");
  rope_.record(sequence_, {T, heads, D / 2}, b.buffer("k"), b.buffer("cos"), b.buffer("sin"), b.buffer("k_rope"));
  dispatched("k_rope");
  attention_.record(sequence_, {T, heads, D}, b.buffer("q_rope"), b.buffer("k_rope"), b.buffer("v"),
                    b.buffer("attention"));
  dispatched("attention");
  linear_residual_.record(sequence_, {T, H, H}, b.buffer("attention"), b.buffer("w_o"), b.buffer("x"),
                          b.buffer("attention_out"));
  dispatched("attention_out");
  rmsnorm_.record(sequence_, {T, H}, b.buffer("attention_out"), b.buffer("w_mlp_norm"), b.buffer("mlp_norm"));
  dispatched("mlp_norm");
  gate_up_.record(sequence_, {T, H, F}, b.buffer("mlp_norm"), b.buffer("w_gate"), b.buffer("w_up"),
                  b.buffer("mlp_gate_up"));
  dispatched("mlp_gate_up");
  linear_residual_.record(sequence_, {T, F, H}, b.buffer("mlp_gate_up"), b.buffer("w_down"),
                          b.buffer("attention_out"), b.buffer("output"));
  dispatched("output");
}

void DecoderBlock::dispatched(const std::string& stage) {
  dispatch_names_.push_back(stage);
  if (timestamps_) sequence_.timestamp();
}

kernelgen::Buffer& DecoderBlock::buffer(const std::string& name) {
  for (auto& [n, b] : buffers_)
    if (n == name) return b;
  throw std::invalid_argument("decoder block: no buffer named " + name);
}

const kernelgen::Buffer& DecoderBlock::buffer(const std::string& name) const {
  return const_cast<DecoderBlock*>(this)->buffer(name);
}

void DecoderBlock::set_input(std::span<const float> x) {
  if (x.size() != static_cast<size_t>(tokens_ * config_.hidden))
    throw std::invalid_argument("decoder block: the input holds " + std::to_string(x.size()) + " floats, expected " +
                                std::to_string(tokens_ * config_.hidden) + " (tokens x hidden)");
  buffer("x").upload(x);
}

std::vector<float> DecoderBlock::stage(const std::string& name) const { return buffer(name).download<float>(); }

std::vector<std::pair<std::string, double>> DecoderBlock::dispatch_times() const {
  std::vector<std::pair<std::string, double>> times;
  if (!timestamps_) return times;
  for (uint32_t i = 0; i < dispatch_names_.size(); ++i)
    times.emplace_back(dispatch_names_[i], sequence_.elapsed_ns(i, i + 1));
  return times;
}

std::vector<std::string> DecoderBlock::kernels() const {
  auto line = [](const char* op, const char* variant) {
    return std::string(op) + ": " + (*variant ? variant : "portable kernel");
  };
  return {line("rmsnorm", rmsnorm_.variant()), line("linear", linear_.variant()), line("rope", rope_.variant()),
          line("causal_attention", attention_.variant()), line("linear_residual", linear_residual_.variant()),
          line("gate_up_swiglu", gate_up_.variant())};
}

}  // namespace block
