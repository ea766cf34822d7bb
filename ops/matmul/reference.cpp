#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(matmul) {
  kernelgen::as_matrix(outputs[0]).noalias() = kernelgen::as_matrix(inputs[0]) * kernelgen::as_matrix(inputs[1]);
}
