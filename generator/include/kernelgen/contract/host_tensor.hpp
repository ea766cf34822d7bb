#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernelgen/dtype.hpp"

namespace kernelgen {

// A tensor's values in host memory, as the kernel's buffer holds them: row-major elements of its dtype.
struct HostTensor {
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  // Zero-filled.
  HostTensor(DType dtype, std::vector<int64_t> shape);

  int64_t elements() const;
  // Element i as a double (exact for every dtype but the 16-bit floats' rounding on the way in), and set from
  // one: floats round to nearest, integers are truncated and must be in the dtype's range.
  double value(int64_t i) const;
  void set(int64_t i, double value);
  std::span<const uint8_t> element_bytes(int64_t i) const;

  bool operator==(const HostTensor&) const = default;
};

// The smallest and largest finite value of a dtype (f16: +-65504, bf16: +-3.39e38).
double lowest_value(DType dtype);
double highest_value(DType dtype);

}  // namespace kernelgen
