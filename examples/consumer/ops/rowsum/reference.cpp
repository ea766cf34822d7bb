#include <kernelgen/reference.hpp>

// y[r] = the sum of row r of x, for however many rows the call has.
KERNELGEN_REFERENCE(rowsum) {
  kernelgen::as_array(outputs[0]) = kernelgen::as_matrix(inputs[0]).rowwise().sum().array();
}
