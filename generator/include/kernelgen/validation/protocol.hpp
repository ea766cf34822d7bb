#pragma once
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/device.hpp"

namespace kernelgen {

// The full validation protocol runs each candidate on the build's device and on a CPU Vulkan device
// (lavapipe), with the Khronos validation layer's GPU-assisted validation catching every out-of-bounds access.
// What a missing piece lets through (docs/validation.md):
//   cpu_device        races a GPU's scheduling happens to hide, kernels that assume 32-wide subgroups, and f16
//                     round trips a GPU's compiler folds away (apt-get install mesa-vulkan-drivers)
//   validation_layer  stores before or far past a tensor, far reads, and unguarded loads that robust access
//                     makes harmless: without the layer only the guard bytes after each tensor see a store
//                     (apt-get install vulkan-validationlayers)
struct ValidationProtocol {
  std::vector<std::string> missing;  // "cpu_device", "validation_layer"; empty: the full protocol
  bool full() const { return missing.empty(); }
};

// The protocol validation on these devices gets, with or without the layer.
ValidationProtocol validation_protocol(const std::vector<DeviceInfo>& devices, bool validation_layer);

// What each missing piece is and the Debian package that brings it: "no CPU Vulkan device (lavapipe:
// mesa-vulkan-drivers)".
std::string describe_missing(const std::vector<std::string>& missing);

// The protocol validation on these devices gets on this machine: with the layer where this process finds it
// (Device::validation_layer_available(), as the validation workers find it).
ValidationProtocol validation_protocol_here(const std::vector<DeviceInfo>& devices);

// Why a kernel may not be validated on this protocol, or nullopt: it is full, or `accept_reduced` (the setting
// KERNELGEN_REDUCED_VALIDATION=1, or `kernelgen validate --reduced`) accepts it. Every entry point asks it before
// it validates: a model's search, a declared KERNEL, VARIANTS, `kernelgen validate` and each op's test.
std::optional<std::string> reduced_validation_refused(const ValidationProtocol& protocol, bool accept_reduced);

// Whether `value` (of KERNELGEN_REDUCED_VALIDATION) accepts reduced validation: "1".
bool accepts_reduced_validation(const std::optional<std::string>& value);

// The line that says a validation runs reduced, as `by` accepted it: "reduced validation, as
// KERNELGEN_REDUCED_VALIDATION=1 accepts: no Khronos validation layer (vulkan-validationlayers)".
std::string reduced_validation_accepted(const ValidationProtocol& protocol,
                                        const std::string& by = "KERNELGEN_REDUCED_VALIDATION=1");

}  // namespace kernelgen
