#include "kernelgen/validation/evaluate.hpp"

#include <spirv-tools/libspirv.hpp>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/contract/kernel_source.hpp"
#include "kernelgen/device.hpp"

namespace kernelgen {

namespace {

// The Vulkan version a module was compiled for (compile_glsl): 1.3 for SPIR-V 1.6, else 1.2.
bool for_vulkan_1_3(std::span<const uint32_t> words) {
  return words.size() > 1 && words[1] >= 0x00010600u;
}

}  // namespace

std::optional<std::string> spirv_validation_error(std::span<const uint32_t> words) {
  spvtools::SpirvTools tools(for_vulkan_1_3(words) ? SPV_ENV_VULKAN_1_3 : SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& position, const char* text) {
    messages += "spirv-val: word " + std::to_string(position.index) + ": " + text + "\n";
  });
  if (tools.Validate(words.data(), words.size())) return std::nullopt;
  return messages.empty() ? "spirv-val rejected the module" : messages;
}

std::variant<KernelBinary, Verdict> compile_candidate(const OpSpec& spec, const std::string& glsl) {
  Verdict verdict;
  std::string error;
  const auto grid = parse_dispatch_line(glsl, spec.dim_names(), &error);
  if (!grid) {
    verdict.status = Status::INTERFACE_MISMATCH;
    verdict.reason = error;
    return verdict;
  }
  Compilation compiled = compile_glsl(glsl);
  if (!compiled.ok) {
    verdict.status = Status::COMPILE_ERROR;
    verdict.reason = "glslang could not compile the shader";
    verdict.log = compiled.log;
    return verdict;
  }
  if (auto invalid = spirv_validation_error(compiled.spirv)) {
    verdict.status = Status::COMPILE_ERROR;
    verdict.reason =
        std::string("the SPIR-V is invalid for Vulkan ") + (for_vulkan_1_3(compiled.spirv) ? "1.3" : "1.2");
    verdict.log = *invalid;
    return verdict;
  }
  return KernelBinary{std::move(compiled.spirv), *grid};
}

Verdict evaluate_source(Device& device, const OpSpec& spec, ReferenceFunction reference, const std::string& glsl,
                        const ValidationOptions& options, KernelBinary* binary) {
  auto compiled = compile_candidate(spec, glsl);
  if (auto* rejected = std::get_if<Verdict>(&compiled)) {
    rejected->base_seed = options.base_seed;
    rejected->device = device.info().name;
    return *rejected;
  }
  KernelBinary& kernel = std::get<KernelBinary>(compiled);
  Verdict verdict = validate_kernel(device, spec, reference, kernel, options);
  if (binary) *binary = std::move(kernel);
  return verdict;
}

}  // namespace kernelgen
