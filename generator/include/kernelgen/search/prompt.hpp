#pragma once
#include <string>
#include <utility>
#include <vector>

#include "kernelgen/llm/types.hpp"
#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

struct DeviceInfo;

// The extensions of the device that the prompt names (cooperative matrices, f16 and i8 arithmetic, 16-bit
// storage, subgroup size control and extended types), in the prompt's order; `kernelgen devices` lists them
// too.
std::vector<std::string> prompt_extensions(const DeviceInfo& device);

// The version of the prompt templates (generator/templates/); part of every spec hash, so a changed prompt
// marks kernels generated from the old one as stale.
std::string prompt_template_version();

// What the previous round taught: a failed candidate and its verdict, for the next prompt.
struct Feedback {
  std::string source;   // the candidate's shader, or the raw reply when no shader could be extracted
  std::string verdict;  // describe(verdict) or the extraction error
};

// `text` (a template of generator/templates/) with the op's placeholders filled in: {{op}}, {{description}},
// {{tensors}}, {{dims}}, {{params}}, {{shape_rules}}, {{dtype_rules}}, {{tolerance}}, {{device}}, {{reference}};
// `extra` placeholders are filled before the op's own text, which may contain something like a placeholder.
std::string fill_op_template(std::string text, const OpSpec& spec, const std::string& reference_text,
                             const DeviceInfo& device, const std::vector<std::pair<std::string, std::string>>& extra);

// The prompts of one round, built from the op's spec, its reference source, the device and the feedback.
llm::Prompt build_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                         const std::vector<Feedback>& feedback);

}  // namespace kernelgen
