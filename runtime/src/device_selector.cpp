#include "device_selector.hpp"

#include <cstdlib>
#include <regex>
#include <stdexcept>

namespace kernelgen {

namespace {

constexpr const char* kCtestGpu = "CTEST_RESOURCE_GROUP_0_GPU";

}  // namespace

std::string ctest_resource_id(const std::string& variable, const std::string& value) {
  static const std::regex entry("^id:([^,;]+),slots:[0-9]+(;.*)?$");
  std::smatch match;
  if (!std::regex_match(value, match, entry))
    throw std::invalid_argument(
        "kernelgen: " + variable + "='" + value +
        "' is not ctest's id:<id>,slots:<n>; unset it, or let ctest set it (RESOURCE_GROUPS "
        "with --resource-spec-file)");
  return match[1];
}

DeviceSelector device_selector(const DeviceOptions& options) {
  if (!options.selector.empty()) return {options.selector, "KERNELGEN_DEVICE", ""};
  if (const char* text = std::getenv("KERNELGEN_DEVICE"); text && *text)
    return {text, "KERNELGEN_DEVICE", ""};
  if (const char* text = std::getenv(kCtestGpu); text && *text)
    return {
        ctest_resource_id(kCtestGpu, text), kCtestGpu,
        "ctest took it from its --resource-spec-file: write the file again on this machine with kernelgen "
        "devices --resource-spec <file>"};
  return {};
}

}  // namespace kernelgen
