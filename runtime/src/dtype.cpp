#include "kernelgen/dtype.hpp"

#include "kernelgen/device.hpp"

namespace kernelgen {

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& info : kDTypes)
    if (info.name == name) return info.dtype;
  return std::nullopt;
}

std::string dtype_names() {
  std::string names;
  for (const DTypeInfo& info : kDTypes) names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

std::optional<std::string> missing_storage_feature(DType dtype, const DeviceFeatures& features) {
  const DTypeInfo& info = dtype_info(dtype);
  // The storage features dtypes.def may name, with the Vulkan feature a user would look up.
  struct Feature {
    std::string_view name;
    bool DeviceFeatures::*member;
    const char* vulkan;
  };
  static constexpr Feature kFeatures[] = {
      {"storage_buffer_16bit", &DeviceFeatures::storage_buffer_16bit, "storageBuffer16BitAccess"},
      {"storage_buffer_8bit", &DeviceFeatures::storage_buffer_8bit, "storageBuffer8BitAccess"},
  };
  for (const Feature& feature : kFeatures) {
    if (feature.name != info.storage_feature) continue;
    if (features.*feature.member) return std::nullopt;
    return std::string(info.name) + " tensors need the device feature " + feature.vulkan + ", which this device lacks";
  }
  return std::nullopt;
}

}  // namespace kernelgen
