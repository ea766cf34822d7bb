#include <kernelgen/reference.hpp>

#include <cmath>
#include <numbers>

// GELU in its tanh approximation (not the exact x * Phi(x) with erf):
//   y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
KERNELGEN_REFERENCE(gelu) {
  const auto x = kernelgen::as_array(inputs[0]);
  const float sqrt_2_over_pi = std::sqrt(2.0f / std::numbers::pi_v<float>);
  kernelgen::as_array(outputs[0]) = 0.5f * x * (1.0f + (sqrt_2_over_pi * (x + 0.044715f * x.cube())).tanh());
}
