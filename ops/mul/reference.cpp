#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(mul) {
  kernelgen::as_array(outputs[0]) = kernelgen::as_array(inputs[0]) * kernelgen::as_array(inputs[1]);
}
