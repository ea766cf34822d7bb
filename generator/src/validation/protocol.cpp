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

ValidationProtocol validation_protocol_here(const std::vector<DeviceInfo>& devices) {
  return validation_protocol(devices, Device::validation_layer_available());
}

std::optional<std::string> reduced_validation_refused(const ValidationProtocol& protocol, bool accept_reduced) {
  if (protocol.full() || accept_reduced) return std::nullopt;
  std::string packages;
  for (const std::string& piece : protocol.missing) {
    if (piece == "cpu_device") packages += " mesa-vulkan-drivers";
    if (piece == "validation_layer") packages += " vulkan-validationlayers";
  }
  return "validation here would be reduced: " + describe_missing(protocol.missing) +
         ". Without them a kernel with a race, a subgroup-size assumption or an out-of-bounds store can pass "
         "(docs/validation.md). Install them (apt-get install" + packages + "), or accept reduced validation with "
         "KERNELGEN_REDUCED_VALIDATION=1 (kernelgen validate: --reduced): the verdict then says so, and a manifest "
         "records validation.mode \"reduced\" and what was missing";
}

bool accepts_reduced_validation(const std::optional<std::string>& value) { return value && *value == "1"; }

std::string reduced_validation_accepted(const ValidationProtocol& protocol, const std::string& by) {
  return "reduced validation, as " + by + " accepts: " + describe_missing(protocol.missing);
}

}  // namespace kernelgen
