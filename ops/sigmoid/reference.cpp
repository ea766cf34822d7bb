#include <kernelgen/reference.hpp>

// The logistic sigmoid: y = 1 / (1 + exp(-x)), elementwise.
KERNELGEN_REFERENCE(sigmoid) {
  const auto x = kernelgen::as_array(inputs[0]);
  kernelgen::as_array(outputs[0]) = 1.0f / (1.0f + (-x).exp());
}
