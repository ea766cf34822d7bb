#include <kernelgen/reference.hpp>

// The same meaning as reference.cpp in other words: its text, and so the op's spec, differ.
KERNELGEN_REFERENCE(negate) { kernelgen::as_array(outputs[0]) = 0.0f - kernelgen::as_array(inputs[0]); }
