#pragma once
// What an op's reference.cpp includes. A reference defines the op's meaning: it reads the input tensors and
// writes the output tensors with Eigen, on the CPU.
//
//   #include <kernelgen/reference.hpp>
//   KERNELGEN_REFERENCE(relu) {
//     kernelgen::as_array(outputs[0]) = kernelgen::as_array(inputs[0]).cwiseMax(0.0f);
//   }
//
// Inside the body: `inputs` (span<const ConstTensorView>, declaration order), `outputs` (span<const
// TensorView>) and `params` (Params, the PARAMS of the declaration). as_array and as_matrix read f32 tensors
// as float; give the element type for other dtypes: as_array<int32_t>(t) for i32, as_array<Eigen::half>(t) for
// f16, Eigen::bfloat16 for bf16, uint32_t, int8_t, uint8_t for u32, i8, u8. Reading a tensor as the wrong type
// throws, naming it.
#include <Eigen/Core>
#include <type_traits>

#include "kernelgen/reference_types.hpp"

namespace kernelgen {

// Eigen::half has the layout of f16's storage (its bits), Eigen::bfloat16 that of bf16's.
template <>
struct DTypeOf<Eigen::half> {
  static constexpr DType value = DType::f16;
};
template <>
struct DTypeOf<Eigen::bfloat16> {
  static constexpr DType value = DType::bf16;
};

template <class T>
using RowMajorMatrixOf = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajorMatrix = RowMajorMatrixOf<float>;

// Eigen views of a tensor's memory: flat, or as a row-major matrix (rows = first dimension).
template <class T = float>
Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> as_array(const ConstTensorView& t) {
  return {t.as<const T>(), t.size()};
}
template <class T = float>
Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> as_array(const TensorView& t) {
  return {t.as<T>(), t.size()};
}
template <class T = float>
Eigen::Map<const RowMajorMatrixOf<T>> as_matrix(const ConstTensorView& t) {
  return {t.as<const T>(), t.dim(0), t.size() / t.dim(0)};
}
template <class T = float>
Eigen::Map<RowMajorMatrixOf<T>> as_matrix(const TensorView& t) {
  return {t.as<T>(), t.dim(0), t.size() / t.dim(0)};
}

}  // namespace kernelgen
