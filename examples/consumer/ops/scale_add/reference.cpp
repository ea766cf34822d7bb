#include <kernelgen/reference.hpp>

// y = alpha * x + b: inputs x and b, PARAMS alpha.
KERNELGEN_REFERENCE(scale_add) {
  const float alpha = static_cast<float>(params.get("alpha"));
  kernelgen::as_array(outputs[0]) = alpha * kernelgen::as_array(inputs[0]) + kernelgen::as_array(inputs[1]);
}
