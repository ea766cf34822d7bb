#include <kernelgen/reference.hpp>

// SiLU (swish): y = x * sigmoid(x) = x * 1 / (1 + exp(-x)), elementwise.
KERNELGEN_REFERENCE(silu) {
  const auto x = kernelgen::as_array(inputs[0]);
  kernelgen::as_array(outputs[0]) = x * (1.0f / (1.0f + (-x).exp()));
}
