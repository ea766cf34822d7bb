#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(negate) { kernelgen::as_array(outputs[0]) = -kernelgen::as_array(inputs[0]); }
