#pragma once
// The decoder block on the CPU, stage by stage, with a bound on how far a correct GPU run may be from each
// stage's value (docs/decoder-block.md, "The tolerance"). Each stage computes exactly what its op's reference
// computes (examples/decoder_block/ops/*/reference.cpp and the catalog's rmsnorm and rope), in f32, from the
// stage before; its bound is a first-order running error bound: the rounding a correct kernel and the reference
// may each commit at that stage, plus what the bounds of its inputs can change it by.
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

// What a stage reads, by the name of the stage that wrote it ("x" for the block's input).
using StageSource = std::function<Stage(const std::string& name)>;

// Every stage of one forward pass over x (tokens x hidden, the first token at position 0), in order; the last
// is the block's output. Without `read`, each stage reads the reference's own stages before it, and its bound
// carries their bounds through (the whole chain from x). With `read` (the GPU's stages, bound 0), each stage
// reads what the GPU's dispatches read, and its bound is its own rounding alone (each dispatch on its own).
std::vector<Stage> reference_block(const BlockWeights& weights, const RopeTables& rope, const Matrix& x,
                                   const StageSource& read = nullptr);

}  // namespace block
