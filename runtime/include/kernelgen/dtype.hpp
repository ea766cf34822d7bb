#pragma once
// Tensor dtypes: the table of kernelgen/dtypes.def as C++. Adding a dtype is adding a line there.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kernelgen {

struct DeviceFeatures;

// A bf16 element as stored: its 16 bits, the upper half of an f32's (dtypes.def). A type of its own, so that
// uint16_t stays f16's storage type.
struct bf16_bits {
  uint16_t bits;
};

enum class DType : uint8_t {
#define KERNELGEN_DTYPE(name, ...) name,
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE
};

enum class DTypeKind { Float, Int, Uint };

struct DTypeInfo {
  DType dtype;
  std::string_view name;             // "f32"
  std::size_t bytes;                 // per element
  DTypeKind kind;
  std::string_view glsl_type;        // "float16_t"
  std::string_view glsl_extensions;  // space-separated #extension names a shader enables for buffers of it
  std::string_view storage_feature;  // the DeviceFeatures member it needs, or "none"
  double atol, rtol;                 // default tolerance of an output of this dtype
};

inline constexpr DTypeInfo kDTypes[] = {
#define KERNELGEN_DTYPE(name, type, bytes, kind, glsl, extensions, feature, atol, rtol) \
  {DType::name, #name, bytes, DTypeKind::kind, glsl, extensions, #feature, atol, rtol},
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE
};

constexpr const DTypeInfo& dtype_info(DType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }
constexpr std::string_view dtype_name(DType dtype) { return dtype_info(dtype).name; }
constexpr std::size_t dtype_bytes(DType dtype) { return dtype_info(dtype).bytes; }

// The dtype named `name` ("f16"), or nullopt.
std::optional<DType> parse_dtype(std::string_view name);
// The names of every dtype, e.g. "f32, f16, i32, u32, i8, u8", for messages.
std::string dtype_names();

// The dtype whose storage type is T: float -> f32, int32_t -> i32, uint16_t -> f16 (its bits), bf16_bits -> bf16.
template <class T>
struct DTypeOf;
#define KERNELGEN_DTYPE(name, type, ...)             \
  template <>                                        \
  struct DTypeOf<type> {                             \
    static constexpr DType value = DType::name;      \
  };
#include "kernelgen/dtypes.def"
#undef KERNELGEN_DTYPE

// Why a device with these features cannot hold tensors of this dtype in storage buffers, or nullopt when it can.
std::optional<std::string> missing_storage_feature(DType dtype, const DeviceFeatures& features);

}  // namespace kernelgen
