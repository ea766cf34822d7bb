#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(relu) { kernelgen::as_array(outputs[0]) = kernelgen::as_array(inputs[0]).cwiseMax(0.0f); }
