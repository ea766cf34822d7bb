#pragma once
// What an op's reference.cpp includes. A reference defines the op's meaning: it reads the input tensors and
// writes the output tensors with Eigen, on the CPU, in plain f32.
//
//   #include <kernelgen/reference.hpp>
//   KERNELGEN_REFERENCE(relu) {
//     kernelgen::as_array(outputs[0]) = kernelgen::as_array(inputs[0]).cwiseMax(0.0f);
//   }
//
// Inside the body: `inputs` (span<const ConstTensorView>, declaration order), `outputs` (span<const
// TensorView>) and `params` (Params, the PARAMS of the declaration).
#include <Eigen/Core>

#include "kernelgen/reference_types.hpp"

namespace kernelgen {

// Eigen views of a tensor's memory: flat, or as a row-major matrix (rows = first dimension).
using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline Eigen::Map<const Eigen::ArrayXf> as_array(const ConstTensorView& t) { return {t.data, t.size()}; }
inline Eigen::Map<Eigen::ArrayXf> as_array(const TensorView& t) { return {t.data, t.size()}; }
inline Eigen::Map<const RowMajorMatrix> as_matrix(const ConstTensorView& t) {
  return {t.data, t.dim(0), t.size() / t.dim(0)};
}
inline Eigen::Map<RowMajorMatrix> as_matrix(const TensorView& t) { return {t.data, t.dim(0), t.size() / t.dim(0)}; }

}  // namespace kernelgen
