#pragma once
// The reference of the test ops named rowsum (x: f32[rows, cols] -> y: f32[rows]): each row summed left to
// right in float, as the test kernels (tests/kernels/rowsum*.comp) sum a row, so a correct kernel matches it
// exactly. It defines and registers kernelgen_reference_rowsum: include it in one source file of a test
// executable.
#include <kernelgen/reference.hpp>

KERNELGEN_REFERENCE(rowsum) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_array(outputs[0]);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    float sum = 0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) sum += x(r, c);
    y(r) = sum;
  }
}
