#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(twice) { kernelgen::as_array(outputs[0]) = 2.0f * kernelgen::as_array(inputs[0]); }
