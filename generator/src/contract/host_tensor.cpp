#include "kernelgen/contract/host_tensor.hpp"

#include <Eigen/Core>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kernelgen {

namespace {

template <class T>
T load(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

template <class T>
void store(uint8_t* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

}  // namespace

HostTensor::HostTensor(DType dtype_, std::vector<int64_t> shape_) : dtype(dtype_), shape(std::move(shape_)) {
  bytes.assign(static_cast<size_t>(elements()) * dtype_bytes(dtype), 0);
}

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::span<const uint8_t> HostTensor::element_bytes(int64_t i) const {
  const size_t size = dtype_bytes(dtype);
  return {bytes.data() + static_cast<size_t>(i) * size, size};
}

namespace {

// An element's storage type T (dtypes.def) as a number. A 16-bit float is stored as its bits: f16's as uint16_t,
// bf16's as bf16_bits (the specialisations below); both convert to and from float exactly where they can,
// rounding to nearest even.
template <class T>
double to_number(T stored, DType dtype) {
  if constexpr (std::is_same_v<T, uint16_t>)
    if (dtype_info(dtype).kind == DTypeKind::Float)
      return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(stored));
  return static_cast<double>(stored);
}

template <class T>
T from_number(double value, DType dtype) {
  if constexpr (std::is_same_v<T, uint16_t>)
    if (dtype_info(dtype).kind == DTypeKind::Float)
      return Eigen::numext::bit_cast<uint16_t>(Eigen::half(static_cast<float>(value)));
  return static_cast<T>(value);
}

template <class T>
double limit(DType dtype, bool highest) {
  if constexpr (std::is_same_v<T, uint16_t>)
    if (dtype_info(dtype).kind == DTypeKind::Float) return highest ? 65504.0 : -65504.0;
  return highest ? static_cast<double>(std::numeric_limits<T>::max())
                 : static_cast<double>(std::numeric_limits<T>::lowest());
}

template <>
double to_number(bf16_bits stored, DType) {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(stored.bits));
}

template <>
bf16_bits from_number(double value, DType) {
  return bf16_bits{Eigen::numext::bit_cast<uint16_t>(Eigen::bfloat16(static_cast<float>(value)))};
}

template <>
double limit<bf16_bits>(DType, bool highest) {
  const double largest = static_cast<float>(std::numeric_limits<Eigen::bfloat16>::max());
  return highest ? largest : -largest;
}

}  // namespace

double HostTensor::value(int64_t i) const {
  const uint8_t* at = bytes.data() + static_cast<size_t>(i) * dtype_bytes(dtype);
  switch (dtype) {
#define KERNELGEN_DTYPE(name, type, ...) \
  case DType::name:                      \
    return to_number(load<type>(at), dtype);
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE
  }
  return 0;
}

void HostTensor::set(int64_t i, double value) {
  uint8_t* at = bytes.data() + static_cast<size_t>(i) * dtype_bytes(dtype);
  switch (dtype) {
#define KERNELGEN_DTYPE(name, type, ...) \
  case DType::name:                      \
    return store(at, from_number<type>(value, dtype));
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE
  }
}

namespace {

double limit(DType dtype, bool highest) {
  switch (dtype) {
#define KERNELGEN_DTYPE(name, type, ...) \
  case DType::name:                      \
    return limit<type>(dtype, highest);
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE
  }
  return 0;
}

}  // namespace

double lowest_value(DType dtype) { return limit(dtype, false); }
double highest_value(DType dtype) { return limit(dtype, true); }

}  // namespace kernelgen
