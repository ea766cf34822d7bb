#include "decoder_block.hpp"

#include <algorithm>
#include <stdexcept>

namespace block {
namespace {

std::span<const Eigen::half> elements(const HalfMatrix& m) {
  return {m.data(), static_cast<size_t>(m.size())};
}
std::span<const float> elements(const Eigen::VectorXf& v) {
  return {v.data(), static_cast<size_t>(v.size())};
}

const kernelgen::Buffer& find(const std::vector<std::pair<std::string, kernelgen::Buffer>>& buffers,
                              const std::string& name) {
  for (const auto& [n, b] : buffers)
    if (n == name) return b;
  throw std::invalid_argument("decoder block: no buffer named " + name);
}

// The first `count` f16 values of a buffer, as floats.
std::vector<float> halves_as_floats(const kernelgen::Buffer& buffer, size_t count) {
  std::vector<Eigen::half> halves(count);
  buffer.download(halves.data(), count * 2);
  return std::vector<float>(halves.begin(), halves.end());
}

}  // namespace

BlockState::BlockState(kernelgen::Device& device, const BlockWeights& w, int64_t capacity)
    : device_(&device), config_(w.config), capacity_(capacity) {
  auto upload = [&](const std::string& name, auto values) {
    buffers_.emplace_back(name, kernelgen::Buffer(device, values.size_bytes()));
    buffers_.back().second.upload(values);
  };
  upload("w_attention_norm", elements(w.attention_norm));
  upload("w_mlp_norm", elements(w.mlp_norm));
  upload("w_q", elements(w.q));
  upload("w_k", elements(w.k));
  upload("w_v", elements(w.v));
  upload("w_o", elements(w.o));
  upload("w_gate", elements(w.gate));
  upload("w_up", elements(w.up));
  upload("w_down", elements(w.down));
  const size_t cache_bytes = static_cast<size_t>(capacity) * static_cast<size_t>(config_.hidden) * 2;
  buffers_.emplace_back("k_cache", kernelgen::Buffer(device, cache_bytes));
  buffers_.emplace_back("v_cache", kernelgen::Buffer(device, cache_bytes));
}

const kernelgen::Buffer& BlockState::buffer(const std::string& name) const {
  return find(buffers_, name);
}

std::vector<float> BlockState::cache(const std::string& name, int64_t rows) const {
  return halves_as_floats(buffer(name), static_cast<size_t>(rows * config_.hidden));
}

template <class Op>
Op& DecoderBlock::op(const char* name) {
  auto made = std::make_shared<Op>(state_->device());
  Op& op = *made;
  ops_.push_back(std::move(made));
  kernels_.push_back(std::string(name) + ": " + (*op.variant() ? op.variant() : "portable kernel"));
  return op;
}

DecoderBlock::DecoderBlock(BlockState& state, int64_t past, int64_t tokens, bool timestamps,
                           uint32_t keys_per_split, uint32_t prefill_splits)
    : state_(&state),
      past_(past),
      tokens_(tokens),
      timestamps_(timestamps),
      sequence_(state.device(), timestamps ? 32 : 0) {  // room for a prefill's 19 timestamps (18 dispatches)
  if (past < 0 || tokens < 1 || past + tokens > state.capacity())
    throw std::invalid_argument("decoder block: " + std::to_string(tokens) + " tokens after " +
                                std::to_string(past) + " do not fit the KV cache's " +
                                std::to_string(state.capacity()) + " positions");
  const BlockConfig& c = state.config();
  const auto T = static_cast<uint32_t>(tokens), H = static_cast<uint32_t>(c.hidden),
             F = static_cast<uint32_t>(c.ffn), heads = static_cast<uint32_t>(c.heads),
             D = static_cast<uint32_t>(c.head_dim()), ctx = static_cast<uint32_t>(past + tokens);
  auto add = [&](const std::string& name, size_t bytes) {
    buffers_.emplace_back(name, kernelgen::Buffer(state.device(), bytes));
  };
  const bool decode = past > 0;
  for (const char* name :
       {"x", "attention_norm", "q", "k", "v", "q_rope", "k_rope", "attention_out", "mlp_norm", "output"})
    add(name, size_t{T} * H * 4);
  // decode_attention_f16 writes its output in f16 only (attention_f16, below).
  if (!attention_in_f16()) add("attention", size_t{T} * H * 4);
  add("mlp_gate_up", size_t{T} * F * 4);
  // A prefill's down projection: its partial products, one range of k each.
  const uint32_t tiles = (T + 127) / 128 * ((H + 127) / 128);
  const uint32_t down_splits = decode                     ? 1
                               : prefill_splits           ? prefill_splits
                               : tiles < kSplitBelowTiles ? 2
                                                          : 1;
  if (down_splits > 1) add("partials", size_t{down_splits} * T * H * 4);
  // A decode step's attention at heads of 128: decode_attention_f16 for each new token, on its q in f16. At
  // other head dims: for each new token, the cache's positions up to its own in ranges of keys_per_split (at
  // most kMaxSplits ranges), a workgroup for each range and head, then one pass that adds the ranges up. Each
  // token's partial rows and lse values start at a multiple of 256 bytes (a bound slice's offset must be a
  // multiple of the device's minStorageBufferOffsetAlignment, at most 256 in Vulkan's limits).
  const bool split_attention = decode && !attention_in_f16();
  const uint32_t splits = std::min<uint32_t>(kMaxSplits, (ctx + keys_per_split - 1) / keys_per_split);
  const auto aligned = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
  const size_t partial_stride = aligned(size_t{heads} * splits * D * 4),
               lse_stride = aligned(size_t{heads} * splits * 4);
  if (split_attention) {
    add("attention_partial", T * partial_stride);
    add("attention_lse", T * lse_stride);
  }
  // The projections read their activations in f16 (to_half's outputs), and the attention its q, but for the
  // split decode attention (f32).
  for (const char* name : {"attention_norm_f16", "attention_f16", "mlp_norm_f16"}) add(name, size_t{T} * H * 2);
  add("mlp_gate_up_f16", size_t{T} * F * 2);
  if (!split_attention) add("q_rope_f16", size_t{T} * H * 2);
  const RopeTables tables = rope_tables(c, past, tokens);
  add("cos", tables.cos.size() * 4);
  add("sin", tables.sin.size() * 4);
  buffer("cos").upload(std::span<const float>(tables.cos));
  buffer("sin").upload(std::span<const float>(tables.sin));

  auto& rmsnorm = op<kernelgen::ops::rmsnorm>("rmsnorm");
  auto& rope = op<kernelgen::ops::rope>("rope");
  auto& append = op<kernelgen::ops::kv_append>("kv_append");
  auto& b = *this;
  auto w = [&](const char* name) -> const kernelgen::Buffer& { return state.buffer(name); };
  // The cache's rows past.. of keys and values, where kv_append writes.
  const uint64_t row_offset = static_cast<uint64_t>(past) * H * 2;

  // A stage's f16 copy, which the projections read (and a prefill's attention its q).
  auto& to_half = op<kernelgen::ops::to_half>("to_half");
  auto input = [&](const char* stage, uint32_t width) -> const kernelgen::Buffer& {
    const std::string name = std::string(stage) + "_f16";
    to_half.record(sequence_, {T, width}, b.buffer(stage), b.buffer(name));
    dispatched(name);
    return b.buffer(name);
  };

  // The step, in the order of block_reference.cpp. A prefill and a decode step differ in the ops of their
  // projections and attention; `projections` records the rest with either set. `attention` records the
  // attention and returns its output in f16, which attention_out's projection reads.
  auto projections = [&](auto&& project_qkv, auto&& project_residual, auto& gate_up, auto&& attention) {
    if (timestamps_) sequence_.timestamp();
    rmsnorm.record(sequence_, {T, H}, b.buffer("x"), w("w_attention_norm"), b.buffer("attention_norm"));
    dispatched("attention_norm");
    project_qkv(input("attention_norm", H));
    rope.record(sequence_, {T, heads, D / 2}, b.buffer("q"), b.buffer("cos"), b.buffer("sin"),
                b.buffer("q_rope"));
    dispatched("q_rope");
    rope.record(sequence_, {T, heads, D / 2}, b.buffer("k"), b.buffer("cos"), b.buffer("sin"),
                b.buffer("k_rope"));
    dispatched("k_rope");
    append.record(sequence_, {T, H},
                  std::vector<kernelgen::BufferSlice>{{&b.buffer("k_rope"), 0},
                                                      {&b.buffer("v"), 0},
                                                      {&w("k_cache"), row_offset},
                                                      {&w("v_cache"), row_offset}});
    dispatched("kv_append");
    const kernelgen::Buffer& attended = attention();
    project_residual("attention_out", H, attended, w("w_o"), b.buffer("x"), 1);
    rmsnorm.record(sequence_, {T, H}, b.buffer("attention_out"), w("w_mlp_norm"), b.buffer("mlp_norm"));
    dispatched("mlp_norm");
    gate_up.record(sequence_, {T, H, F}, input("mlp_norm", H), w("w_gate"), w("w_up"),
                   b.buffer("mlp_gate_up"));
    dispatched("mlp_gate_up");
    project_residual("output", F, input("mlp_gate_up", F), w("w_down"), b.buffer("attention_out"),
                     down_splits);
  };
  if (decode) {
    auto& qkv = op<kernelgen::ops::qkv_gemv>("qkv_gemv");
    auto& gemv_residual = op<kernelgen::ops::gemv_residual>("gemv_residual");
    auto project_residual = [&](const char* stage, uint32_t k, const kernelgen::Buffer& x,
                                const kernelgen::Buffer& weight, const kernelgen::Buffer& r, uint32_t) {
      gemv_residual.record(sequence_, {T, k, H}, x, weight, r, b.buffer(stage));
      dispatched(stage);
    };
    auto& gate_up = op<kernelgen::ops::gate_up_swiglu_gemv>("gate_up_swiglu_gemv");
    projections(
        [&](const kernelgen::Buffer& normed) {
          qkv.record(sequence_, {T, H, H}, normed, w("w_q"), w("w_k"), w("w_v"), b.buffer("q"), b.buffer("k"),
                     b.buffer("v"));
          dispatched("qkv");
        },
        project_residual, gate_up,
        [&]() -> const kernelgen::Buffer& {
          // Token t at position past + t attends to the cache's first past + t + 1 positions.
          if (attention_in_f16()) {
            // Its q and output rows are row t of q_rope_f16 and attention_f16 (hidden * 2 bytes each, a
            // multiple of 256 at hidden 256 and 4096).
            auto& attention = op<kernelgen::ops::decode_attention_f16>("decode_attention_f16");
            const kernelgen::Buffer& q = input("q_rope", H);
            const uint64_t row_bytes = uint64_t{H} * 2;
            for (uint32_t t = 0; t < T; ++t)
              attention.record(sequence_, {heads, static_cast<uint32_t>(past) + t + 1},
                               {{&q, t * row_bytes},
                                {&w("k_cache"), 0},
                                {&w("v_cache"), 0},
                                {&b.buffer("attention_f16"), t * row_bytes}});
            dispatched("attention");
            return b.buffer("attention_f16");
          }
          // Its q and output rows are row t of q_rope and attention (hidden * 4 bytes each, a multiple of 256
          // at hidden 64).
          auto& split = op<kernelgen::ops::decode_attention_split>("decode_attention_split");
          auto& combine = op<kernelgen::ops::decode_attention_combine>("decode_attention_combine");
          const uint64_t row_bytes = uint64_t{H} * 4;
          for (uint32_t t = 0; t < T; ++t)
            split.record(sequence_, {heads, D, static_cast<uint32_t>(past) + t + 1, splits},
                         {{&b.buffer("q_rope"), t * row_bytes},
                          {&w("k_cache"), 0},
                          {&w("v_cache"), 0},
                          {&b.buffer("attention_partial"), t * partial_stride},
                          {&b.buffer("attention_lse"), t * lse_stride}});
          dispatched("attention_split");
          for (uint32_t t = 0; t < T; ++t)
            combine.record(sequence_, {heads, splits, D},
                           {{&b.buffer("attention_partial"), t * partial_stride},
                            {&b.buffer("attention_lse"), t * lse_stride},
                            {&b.buffer("attention"), t * row_bytes}});
          dispatched("attention");
          return input("attention", H);
        });
  } else {
    auto& project = op<kernelgen::ops::linear>("linear");
    auto& attention = op<kernelgen::ops::causal_attention>("causal_attention");
    // y = x w^T + r in one dispatch, or k's `splits` ranges' products and then their sum and r.
    auto& whole = op<kernelgen::ops::linear_residual>("linear_residual");
    auto* partials = down_splits > 1 ? &op<kernelgen::ops::linear_partials>("linear_partials") : nullptr;
    auto* add_up =
        down_splits > 1 ? &op<kernelgen::ops::sum_partials_residual>("sum_partials_residual") : nullptr;
    auto project_residual = [&](const char* stage, uint32_t k, const kernelgen::Buffer& x,
                                const kernelgen::Buffer& weight, const kernelgen::Buffer& r,
                                uint32_t splits) {
      if (splits == 1) {
        whole.record(sequence_, {T, k, H}, x, weight, r, b.buffer(stage));
      } else {
        partials->record(sequence_, {T, k, H, splits}, x, weight, b.buffer("partials"));
        dispatched(std::string(stage) + "_partials");
        add_up->record(sequence_, {splits, T, H}, b.buffer("partials"), r, b.buffer(stage));
      }
      dispatched(stage);
    };
    auto& gate_up = op<kernelgen::ops::gate_up_swiglu>("gate_up_swiglu");
    // The attention takes q in f16 and the keys and values kv_append has just written to the cache's rows
    // 0...
    projections(
        [&](const kernelgen::Buffer& normed) {
          for (const char* p : {"q", "k", "v"}) {
            project.record(sequence_, {T, H, H}, normed, w((std::string("w_") + p).c_str()), b.buffer(p));
            dispatched(p);
          }
        },
        project_residual, gate_up,
        [&]() -> const kernelgen::Buffer& {
          const kernelgen::Buffer& q = input("q_rope", H);
          attention.record(sequence_, {T, heads, D},
                           std::vector<kernelgen::BufferSlice>{
                               {&q, 0}, {&w("k_cache"), 0}, {&w("v_cache"), 0}, {&b.buffer("attention"), 0}});
          dispatched("attention");
          return input("attention", H);
        });
  }
}

bool DecoderBlock::attention_in_f16() const {
  return past_ > 0 && decodes_attention_in_f16(state_->config());
}

void DecoderBlock::dispatched(const std::string& stage) {
  dispatch_names_.push_back(stage);
  if (timestamps_) sequence_.timestamp();
}

kernelgen::Buffer& DecoderBlock::buffer(const std::string& name) {
  return const_cast<kernelgen::Buffer&>(find(buffers_, name));
}

const kernelgen::Buffer& DecoderBlock::buffer(const std::string& name) const {
  return find(buffers_, name);
}

void DecoderBlock::set_input(std::span<const float> x) {
  const auto hidden = static_cast<size_t>(state_->config().hidden);
  if (x.size() != static_cast<size_t>(tokens_) * hidden)
    throw std::invalid_argument("decoder block: the input holds " + std::to_string(x.size()) +
                                " floats, expected " + std::to_string(tokens_) + " x " +
                                std::to_string(hidden) + " (tokens x hidden)");
  buffer("x").upload(x);
}

std::vector<float> DecoderBlock::stage(const std::string& name) const {
  if (name == "attention" && attention_in_f16()) {  // decode_attention_f16's output, as floats
    const kernelgen::Buffer& halves = buffer("attention_f16");
    return halves_as_floats(halves, halves.size() / 2);
  }
  return buffer(name).download<float>();
}

std::vector<std::pair<std::string, double>> DecoderBlock::dispatch_times() const {
  std::vector<std::pair<std::string, double>> times;
  if (!timestamps_) return times;
  for (uint32_t i = 0; i < dispatch_names_.size(); ++i)
    times.emplace_back(dispatch_names_[i], sequence_.elapsed_ns(i, i + 1));
  return times;
}

}  // namespace block
