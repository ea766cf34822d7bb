#pragma once
#include <optional>
#include <string>
#include <variant>

#include "kernelgen/validation/validate.hpp"

namespace kernelgen {

// GLSL text -> dispatch line (over the op's dims) -> glslang -> spirv-val: the kernel to run, or the verdict that rejects it
// (INTERFACE_MISMATCH for a missing dispatch line, COMPILE_ERROR) before anything runs.
std::variant<KernelBinary, Verdict> compile_candidate(const OpSpec& spec, const std::string& glsl);

// GLSL text -> dispatch line -> glslang -> spirv-val -> validate on Vulkan: the stages every candidate goes
// through, hand-written or generated. `binary` receives the compiled kernel when it compiled.
Verdict evaluate_source(Device& device, const OpSpec& spec, ReferenceFunction reference, const std::string& glsl,
                        const ValidationOptions& options, KernelBinary* binary = nullptr);

// spirv-val's complaint about the module for Vulkan 1.2, or nullopt when it is valid.
std::optional<std::string> spirv_validation_error(std::span<const uint32_t> words);

}  // namespace kernelgen
