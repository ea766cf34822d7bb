#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernelgen/device.hpp"

namespace kernelgen {

// The devices every candidate is validated on, one worker process each; it passes only when it passes on all.
// `setting` is KERNELGEN_VALIDATION_DEVICES:
//   unset or empty  the selected device (KERNELGEN_DEVICE, else the first GPU) and every CPU device beside it
//                   (lavapipe schedules workgroups and rounds differently from a GPU's compiler)
//   all             every device the loader lists
//   gpu, cpu        every device that is not a CPU, or every one that is
//   a list          indices or case-insensitive name parts, comma-separated: "0,llvmpipe"
// The selected device comes first: it is the one a passing kernel is timed on. Throws std::invalid_argument
// naming the setting for a value that selects nothing.
std::vector<DeviceInfo> validation_devices(const std::optional<std::string>& setting,
                                           const std::vector<DeviceInfo>& present, const DeviceInfo& selected);

// The same for this machine: Device::list() and `selected`. Test hook: with KERNELGEN_TEST_DEVICE_TYPE=<type> every
// device is taken for one of that type ("discrete": a machine with lavapipe alone stands for a GPU without a CPU
// device beside it), which is how the tests show what each entry point does without a CPU device.
std::vector<DeviceInfo> validation_devices_here(const std::optional<std::string>& setting, DeviceInfo selected);

// The same, with the setting from the environment and Device::describe_selected().
std::vector<DeviceInfo> validation_devices_from_environment();

// Which of `devices` can run the kernel `glsl`: those where every SPIR-V capability it declares is one the device
// has and kernelgen enables (a variant on cooperative matrices runs on a GPU that has them, not on lavapipe), in
// order, and the others, each with the capability it lacks ("" where the kernel's interface cannot be read). All
// of them can when the kernel does not compile, so that validation reports the compile error.
struct DevicesForKernel {
  std::vector<DeviceInfo> able;
  std::vector<std::pair<DeviceInfo, std::string>> unable;
};
DevicesForKernel devices_that_run(const std::vector<DeviceInfo>& devices, const std::string& glsl);

}  // namespace kernelgen
