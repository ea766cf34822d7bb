#pragma once
// Compares the GPU's stages with the reference's, element by element, against twice each element's first-order
// bound (the factor 2 covers the second-order terms the bound leaves out: products of relative errors, each far
// below 1e-2 here).
#include "block_reference.hpp"

#include <functional>
#include <string>
#include <vector>

namespace block {

struct StageResult {
  std::string name;
  double max_error = 0.0;        // the largest |gpu - reference|
  double max_bound_used = 0.0;   // the largest |gpu - reference| / (2 bound): at most 1 to pass
  double max_relative = 0.0;     // the largest |gpu - reference| / max |reference| of the stage
  long unbounded = 0;            // elements whose bound is infinite (it passed f16's range): only a NaN fails there
  std::string first_failure;     // empty when every element is within its bound
};

// `gpu_stage(name)` gives the GPU's values of a stage, in the reference's layout.
std::vector<StageResult> check_block(const std::vector<Stage>& reference,
                                     const std::function<const std::vector<float>&(const std::string&)>& gpu_stage);

}  // namespace block
