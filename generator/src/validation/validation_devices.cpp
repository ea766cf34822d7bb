#include "kernelgen/validation/validation_devices.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "kernelgen/capabilities.hpp"
#include "kernelgen/compile/compile.hpp"

namespace kernelgen {

namespace {

bool is_cpu(const DeviceInfo& device) { return device.type == "cpu"; }

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string listing(const std::vector<DeviceInfo>& present) {
  std::string text;
  for (const DeviceInfo& device : present)
    text += (text.empty() ? "" : ", ") + std::to_string(device.index) + ": " + device.name + " (" + device.type + ")";
  return text.empty() ? "none" : text;
}

std::invalid_argument bad_setting(const std::string& value, const std::string& why,
                                  const std::vector<DeviceInfo>& present) {
  return std::invalid_argument("KERNELGEN_VALIDATION_DEVICES='" + value + "': " + why +
                               "; write all, gpu, cpu, or device indices, UUIDs or names separated by commas (devices: " +
                               listing(present) + ")");
}

const DeviceInfo* find_device(const std::string& item, const std::vector<DeviceInfo>& present) {
  for (const DeviceInfo& device : present)
    if (matches_selector(device, item)) return &device;
  return nullptr;
}

// Trims spaces around a list item.
std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

}  // namespace

std::vector<DeviceInfo> validation_devices(const std::optional<std::string>& setting,
                                           const std::vector<DeviceInfo>& present, const DeviceInfo& selected) {
  std::vector<DeviceInfo> chosen;
  const auto add = [&](const DeviceInfo& device) {
    if (std::none_of(chosen.begin(), chosen.end(), [&](const DeviceInfo& d) { return d.index == device.index; }))
      chosen.push_back(device);
  };
  const std::string value = setting ? trimmed(*setting) : "";
  const std::string mode = lowercase(value);
  if (mode.empty()) {
    add(selected);
    for (const DeviceInfo& device : present)
      if (is_cpu(device)) add(device);
    return chosen;
  }
  if (mode == "all" || mode == "gpu" || mode == "cpu") {
    // The selected device first when it belongs, so that it is the one timed.
    const auto belongs = [&](const DeviceInfo& d) { return mode == "all" || (mode == "cpu") == is_cpu(d); };
    if (belongs(selected)) add(selected);
    for (const DeviceInfo& device : present)
      if (belongs(device)) add(device);
    if (chosen.empty())
      throw bad_setting(value, mode == "cpu" ? "there is no CPU Vulkan device (lavapipe: apt-get install mesa-vulkan-drivers)"
                                             : "there is no " + mode + " Vulkan device",
                        present);
    return chosen;
  }
  for (size_t start = 0; start <= value.size();) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    const std::string item = trimmed(value.substr(start, end - start));
    if (item.empty()) throw bad_setting(value, "an empty item", present);
    const DeviceInfo* device = find_device(item, present);
    if (!device) throw bad_setting(value, "no device is '" + item + "'", present);
    add(*device);
    start = end + 1;
  }
  return chosen;
}

std::vector<DeviceInfo> validation_devices_here(const std::optional<std::string>& setting, DeviceInfo selected) {
  std::vector<DeviceInfo> present = Device::list();
  if (const char* type = std::getenv("KERNELGEN_TEST_DEVICE_TYPE"); type && *type) {
    selected.type = type;
    for (DeviceInfo& device : present) device.type = type;
  }
  return validation_devices(setting, present, selected);
}

std::vector<DeviceInfo> validation_devices_from_environment() {
  const char* setting = std::getenv("KERNELGEN_VALIDATION_DEVICES");
  return validation_devices_here(setting ? std::optional<std::string>(setting) : std::nullopt,
                                 Device::describe_selected());
}

DevicesForKernel devices_that_run(const std::vector<DeviceInfo>& devices, const std::string& glsl) {
  const Compilation compiled = compile_glsl(glsl);
  if (!compiled.ok) return {devices, {}};
  const auto interface = reflect_spirv(compiled.spirv);
  DevicesForKernel split;
  for (const DeviceInfo& device : devices) {
    const auto lacking = interface ? capability_problem(*interface, device) : std::nullopt;
    if (interface && !lacking)
      split.able.push_back(device);
    else
      split.unable.emplace_back(device, lacking ? lacking->capability : "");
  }
  return split;
}

}  // namespace kernelgen
