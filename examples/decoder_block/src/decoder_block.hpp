#pragma once
// The decoder block on kernelgen ops. BlockState holds what lives across calls: the weights and the KV cache
// (f16 keys and values, `capacity` positions), in device buffers. A DecoderBlock is one step of it, recorded
// once into one Sequence and submitted again for every call: `tokens` new tokens at positions
// past..past+tokens-1.
// - past = 0 (a prefill): linear, linear_residual and gate_up_swiglu for the projections, each reading an f16
//   copy of its input that to_half makes (the down projection split along k where its tiles are few:
//   linear_partials, then sum_partials_residual), and causal_attention over the prompt's own keys and values,
//   as the cache holds them in f16 (and q, through to_half);
// - past > 0 (a decode step): gemv, gemv_residual and gate_up_swiglu_gemv for the projections (their kernels
//   spread each weight over many workgroups) and flash-decoding over the cache: at heads of 128, the
//   catalog's decode_attention_f16 on q in f16 (through to_half), one dispatch a new token; at other head
//   dims, decode_attention_split (the cache's positions in ranges of 128, a workgroup each) then
//   decode_attention_combine, in f32.
// Both append the new keys (after the rotary embedding) and values to the cache with kv_append, bound at the
// cache's rows past.. (a BufferSlice). The runtime puts barriers only where a dispatch reads what another
// wrote.
#include "rope_tables.hpp"
#include "weights.hpp"

#include <kernelgen/ops/causal_attention.hpp>
#include <kernelgen/ops/decode_attention_combine.hpp>
#include <kernelgen/ops/decode_attention_f16.hpp>
#include <kernelgen/ops/decode_attention_split.hpp>
#include <kernelgen/ops/gate_up_swiglu.hpp>
#include <kernelgen/ops/gate_up_swiglu_gemv.hpp>
#include <kernelgen/ops/gemv_residual.hpp>
#include <kernelgen/ops/kv_append.hpp>
#include <kernelgen/ops/linear.hpp>
#include <kernelgen/ops/linear_partials.hpp>
#include <kernelgen/ops/linear_residual.hpp>
#include <kernelgen/ops/qkv_gemv.hpp>
#include <kernelgen/ops/rmsnorm.hpp>
#include <kernelgen/ops/rope.hpp>
#include <kernelgen/ops/sum_partials_residual.hpp>
#include <kernelgen/ops/to_half.hpp>
#include <kernelgen/runtime.hpp>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace block {

class BlockState {
 public:
  BlockState(kernelgen::Device& device, const BlockWeights& weights, int64_t capacity);
  kernelgen::Device& device() { return *device_; }
  const BlockConfig& config() const { return config_; }
  int64_t capacity() const { return capacity_; }
  const kernelgen::Buffer& buffer(const std::string& name) const;
  // The cache's first `rows` positions of keys ("k_cache") or values ("v_cache"), as floats.
  std::vector<float> cache(const std::string& name, int64_t rows) const;

 private:
  kernelgen::Device* device_;
  BlockConfig config_;
  int64_t capacity_;
  std::vector<std::pair<std::string, kernelgen::Buffer>> buffers_;
};

inline constexpr uint32_t kKeysPerSplit = 128, kMaxSplits = 256;
// A prefill's down projection is split along k in two where the 128 x 128 tiles of its output number fewer
// than this: 128 at 512 tokens of hidden 4096, where an H200's 132 multiprocessors hold two of these
// workgroups each.
inline constexpr uint32_t kSplitBelowTiles = 256;

class DecoderBlock {
 public:
  // Records the step, with a GPU timestamp after each dispatch when `timestamps`. Throws
  // std::invalid_argument when past + tokens exceeds the cache's capacity. A decode step's split attention
  // (at head dims other than 128) takes the cache's positions in ranges of `keys_per_split` (at most
  // kMaxSplits ranges), a workgroup per range and head. A prefill's down projection takes k in
  // `prefill_splits` ranges (linear_partials, then sum_partials_residual; 1: linear_residual, as the
  // attention's output projection), or where it is 0 in two where its tiles are fewer than kSplitBelowTiles,
  // else one.
  DecoderBlock(BlockState& state, int64_t past, int64_t tokens, bool timestamps,
               uint32_t keys_per_split = kKeysPerSplit, uint32_t prefill_splits = 0);

  int64_t tokens() const { return tokens_; }
  int64_t past() const { return past_; }
  // x: tokens x hidden floats, row-major.
  void set_input(std::span<const float> x);
  [[nodiscard]] kernelgen::Submission submit() { return sequence_.submit(); }
  void forward() { sequence_.run(); }
  // A stage's buffer after the last call, by the names block_reference.hpp gives the stages.
  std::vector<float> stage(const std::string& name) const;
  // Each dispatch of the last call: its stage's name and its GPU time in ns (with timestamps only).
  std::vector<std::pair<std::string, double>> dispatch_times() const;
  // Which kernel each op of this step runs, e.g. "linear: coopmat".
  std::vector<std::string> kernels() const { return kernels_; }
  uint32_t barriers() const { return sequence_.barrier_count(); }

 private:
  kernelgen::Buffer& buffer(const std::string& name);
  const kernelgen::Buffer& buffer(const std::string& name) const;
  void dispatched(const std::string& stage);
  // Whether this step is a decode step whose attention is decode_attention_f16 (decodes_attention_in_f16).
  bool attention_in_f16() const;
  template <class Op>
  Op& op(const char* name);

  BlockState* state_;
  int64_t past_, tokens_;
  bool timestamps_;
  std::vector<std::pair<std::string, kernelgen::Buffer>> buffers_;
  std::vector<std::shared_ptr<void>> ops_;  // the op objects this step records, kept alive with it
  std::vector<std::string> kernels_;
  kernelgen::Sequence sequence_;
  std::vector<std::string> dispatch_names_;
};

}  // namespace block
