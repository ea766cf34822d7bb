#include <kernelgen/reference.hpp>

// SwiGLU's gating, as in a LLaMA MLP (torch: F.silu(gate) * up), elementwise over the row-major rows x cols
// matrices gate and up (the outputs of the MLP's gate and up projections):
//   y = gate * (1 / (1 + exp(-gate))) * up
// in float, in that order. gate = -inf gives NaN (-inf * 0), gate = +inf gives inf * up.
KERNELGEN_REFERENCE(swiglu) {
  const auto gate = kernelgen::as_array(inputs[0]);
  const auto up = kernelgen::as_array(inputs[1]);
  kernelgen::as_array(outputs[0]) = gate * (1.0f / (1.0f + (-gate).exp())) * up;
}
