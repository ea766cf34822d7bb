#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kernelgen/device.hpp"
#include "kernelgen/spirv_interface.hpp"

namespace kernelgen {

// A SPIR-V capability a kernel declares that it may not use here: one that needs a feature this device lacks
// (`device_lacks`, workgroup-scope cooperative matrices among them), or one the runtime never enables (16-bit
// push constants...), or one kernelgen does not know. One table serves the validator, which rejects such a
// kernel, and the wrappers, which run an op's variant only on a device that has what it declares.
struct CapabilityProblem {
  std::string capability;
  bool device_lacks = false;
};

std::optional<CapabilityProblem> capability_problem(const SpirvInterface& interface, const DeviceInfo& device);

// Whether `device` has every capability the module declares (false for words that are not SPIR-V).
bool runs_on(const DeviceInfo& device, std::span<const uint32_t> spirv);

}  // namespace kernelgen
