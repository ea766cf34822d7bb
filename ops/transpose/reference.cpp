#include <kernelgen/reference.hpp>

// y[c, r] = x[r, c]: x is rows x cols and y is cols x rows, both row-major, so row c of y is column c of x.
// A pure copy: every value, NaN (with its payload), infinities and -0.0 included, arrives bit for bit.
KERNELGEN_REFERENCE(transpose) {
  kernelgen::as_matrix(outputs[0]) = kernelgen::as_matrix(inputs[0]).transpose();
}
