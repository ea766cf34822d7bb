#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(add) {
  kernelgen::as_array(outputs[0]) = kernelgen::as_array(inputs[0]) + kernelgen::as_array(inputs[1]);
}
