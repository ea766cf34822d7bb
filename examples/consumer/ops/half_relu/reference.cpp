#include <kernelgen/reference.hpp>

// y = max(x, 0) in half precision: exact, since the result is one of the inputs or zero.
KERNELGEN_REFERENCE(half_relu) {
  kernelgen::as_array<Eigen::half>(outputs[0]) =
      kernelgen::as_array<Eigen::half>(inputs[0]).max(Eigen::half(0.0f));
}
