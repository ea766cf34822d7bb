#include "kernelgen/validation/protocol.hpp"

#include <algorithm>

namespace kernelgen {

ValidationProtocol validation_protocol(const std::vector<DeviceInfo>& devices, bool validation_layer) {
  ValidationProtocol protocol;
  if (std::none_of(devices.begin(), devices.end(), [](const DeviceInfo& d) { return d.type == "cpu"; }))
    protocol.missing.push_back("cpu_device");
  if (!validation_layer) protocol.missing.push_back("validation_layer");
  return protocol;
}

std::string describe_missing(const std::vector<std::string>& missing) {
  std::string text;
  for (const std::string& piece : missing) {
    text += text.empty() ? "" : ", ";
    if (piece == "cpu_device") text += "no CPU Vulkan device (lavapipe: mesa-vulkan-drivers)";
    else if (piece == "validation_layer") text += "no Khronos validation layer (vulkan-validationlayers)";
    else text += piece;
  }
  return text;
}

std::optional<std::string> reduced_validation_refused(const ValidationProtocol& protocol, bool accept_reduced) {
  if (protocol.full() || accept_reduced) return std::nullopt;
  return "validation here would be reduced: " + describe_missing(protocol.missing) +
         ". Without them a kernel with a race, a subgroup-size assumption or an out-of-bounds store can pass "
         "(docs/validation.md). Install them (apt-get install mesa-vulkan-drivers vulkan-validationlayers), or "
         "accept reduced validation with KERNELGEN_REDUCED_VALIDATION=1: the manifest then records "
         "validation.mode \"reduced\" and what was missing";
}

}  // namespace kernelgen
