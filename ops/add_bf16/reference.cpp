#include <kernelgen/reference.hpp>

// z = x + y for bf16 tensors (bf16 is the upper 16 bits of an f32: 8 bits of precision, f32's range). Each sum
// is computed in f32, where the two bf16 values are exact, and rounded to the nearest bf16, ties to even; an
// overflow rounds to an infinity, and a NaN stays NaN.
KERNELGEN_REFERENCE(add_bf16) {
  const auto x = kernelgen::as_array<Eigen::bfloat16>(inputs[0]).cast<float>();
  const auto y = kernelgen::as_array<Eigen::bfloat16>(inputs[1]).cast<float>();
  kernelgen::as_array<Eigen::bfloat16>(outputs[0]) = (x + y).cast<Eigen::bfloat16>();
}
