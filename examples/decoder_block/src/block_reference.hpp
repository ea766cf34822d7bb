#pragma once
// The decoder block on the CPU, stage by stage, with a bound on how far a correct GPU run may be from each stage's
// value (docs/decoder-block.md, "Checking the block"). Each stage computes exactly what its op's reference computes
// (examples/decoder_block/ops/*/reference.cpp and the catalog's rmsnorm and rope), in f32, from the stage before (a
// prefill's projection stage covers to_half and the projection: the f16 copy it reads is half(x) of the stage before;
// its attention stage covers to_half of q the same way);
// its bound is a first-order running error bound: the rounding a correct kernel and the reference may each commit at
// that stage, plus what the bounds of its inputs can change it by.
#include "rope_tables.hpp"
#include "weights.hpp"

#include <Eigen/Core>

#include <functional>
#include <string>
#include <vector>

namespace block {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Stage {
  std::string name;  // as the GPU block names the buffer that holds it
  Matrix value;      // tokens x width
  Matrix bound;      // |a correct GPU value - value| <= bound, to first order
};

// What a stage reads, by the name of the stage that wrote it ("x" for the step's input, "k_cache" and "v_cache"
// for the KV cache's first past + tokens positions).
using StageSource = std::function<Stage(const std::string& name)>;

// Every stage of one step of the block, in order (the last is the step's output): `tokens` new tokens at
// positions past..past+tokens-1, the KV cache holding the keys and values of positions before them.
// - Without `read` (the whole chain), x holds every position's input, 0..past+tokens-1: the reference runs the
//   block over all of them (a decode step's attention on f16 keys and values, as the cache holds them) and each
//   stage's bound carries the bounds of the stages before it. Each stage keeps the step's rows, the KV cache
//   stages all past + tokens.
// - With `read` (the GPU's stages, bound 0), x is the step's input, and each stage reads what the GPU's dispatch
//   read: its bound is its own rounding alone (each dispatch on its own; a prefill's projection and attention
//   stages read the f32 stage before them and cover to_half's rounding of it too).
// rmsnorm's eps is the catalog kernel's 1e-6.
std::vector<Stage> reference_block(const BlockWeights& weights, const Matrix& x, int64_t past, int64_t tokens,
                                   const StageSource& read = nullptr);

}  // namespace block
