#pragma once
// The decoder block on kernelgen ops: its weights and activations in device buffers, one forward pass recorded
// once into one Sequence (11 dispatches, the runtime's barriers only where one reads what another wrote), and
// submitted again for every call at the same number of tokens.
#include "rope_tables.hpp"
#include "weights.hpp"

#include <kernelgen/ops/causal_attention.hpp>
#include <kernelgen/ops/gate_up_swiglu.hpp>
#include <kernelgen/ops/linear.hpp>
#include <kernelgen/ops/linear_residual.hpp>
#include <kernelgen/ops/rmsnorm.hpp>
#include <kernelgen/ops/rope.hpp>
#include <kernelgen/runtime.hpp>

#include <span>
#include <string>
#include <vector>

namespace block {

class DecoderBlock {
 public:
  // Uploads the weights and the rotary tables for positions 0..tokens - 1, and records the forward pass, with a
  // GPU timestamp after each dispatch when `timestamps`.
  DecoderBlock(kernelgen::Device& device, const BlockWeights& weights, int64_t tokens, bool timestamps);

  int64_t tokens() const { return tokens_; }
  // x: tokens x hidden floats, row-major.
  void set_input(std::span<const float> x);
  // Submits the recording and returns at once; forward() also waits.
  [[nodiscard]] kernelgen::Submission submit() { return sequence_.submit(); }
  void forward() { sequence_.run(); }
  // A stage's buffer after the last forward pass, by the names block_reference.hpp gives the stages.
  std::vector<float> stage(const std::string& name) const;
  // Each dispatch of the last submission: its stage's name and its GPU time in ns (with timestamps only).
  std::vector<std::pair<std::string, double>> dispatch_times() const;
  // Which kernel each op runs ("" its own, else the variant's name), e.g. "linear: coopmat".
  std::vector<std::string> kernels() const;
  uint32_t barriers() const { return sequence_.barrier_count(); }

 private:
  kernelgen::Buffer& buffer(const std::string& name);
  const kernelgen::Buffer& buffer(const std::string& name) const;
  void dispatched(const std::string& stage);

  kernelgen::Device* device_;
  BlockConfig config_;
  int64_t tokens_;
  bool timestamps_;
  std::vector<std::pair<std::string, kernelgen::Buffer>> buffers_;
  kernelgen::ops::rmsnorm rmsnorm_;
  kernelgen::ops::linear linear_;
  kernelgen::ops::rope rope_;
  kernelgen::ops::causal_attention attention_;
  kernelgen::ops::linear_residual linear_residual_;
  kernelgen::ops::gate_up_swiglu gate_up_;
  kernelgen::Sequence sequence_;
  std::vector<std::string> dispatch_names_;
};

}  // namespace block
