#include "kernelgen/prompt.hpp"

#include <algorithm>
#include <cstdio>

#include "kernelgen/device.hpp"
#include "kernelgen/hash.hpp"
#include "embedded_text.hpp"

namespace kernelgen {

namespace {

void replace_all(std::string& text, const std::string& placeholder, const std::string& value) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
}

std::string shape_text(const TensorSpec& tensor) {
  std::string text = tensor.name;
  text.append(": f32[").append(join_extents(tensor.shape, ',')).append("] (");
  return text.append(std::to_string(tensor.elements())).append(" elements)");
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string device_text(const DeviceInfo& device) {
  const auto& size = device.max_workgroup_size;
  std::string text = "- " + device.name + " (" + device.type + "), subgroup size " +
                     std::to_string(device.subgroup_size) + "\n- at most " +
                     std::to_string(device.max_workgroup_invocations) + " invocations per workgroup, sizes up to " +
                     std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" + std::to_string(size[2]) +
                     "\n- " + std::to_string(device.max_shared_memory_bytes) + " bytes of shared memory per workgroup\n";
  std::string useful;
  for (const char* extension : {"VK_NV_cooperative_matrix", "VK_KHR_cooperative_matrix", "VK_KHR_shader_float16_int8",
                                "VK_KHR_16bit_storage", "VK_EXT_subgroup_size_control", "VK_KHR_shader_subgroup_extended_types"})
    if (std::binary_search(device.extensions.begin(), device.extensions.end(), std::string(extension)))
      useful += std::string(useful.empty() ? "" : ", ") + extension;
  if (!useful.empty()) text += "- extensions: " + useful + "\n";
  return text;
}

std::string feedback_text(const std::vector<Feedback>& feedback) {
  if (feedback.empty()) return "";
  std::string text = "\n## Earlier attempts that were rejected\nFix what the verdict says; do not repeat these mistakes.\n";
  for (size_t i = 0; i < feedback.size(); ++i) {
    text += "\n### Attempt " + std::to_string(i + 1) + "\n```glsl\n" + feedback[i].source;
    if (!feedback[i].source.empty() && feedback[i].source.back() != '\n') text += "\n";
    text += "```\nVerdict:\n```\n" + feedback[i].verdict;
    if (!feedback[i].verdict.empty() && feedback[i].verdict.back() != '\n') text += "\n";
    text += "```\n";
  }
  return text;
}

}  // namespace

std::string prompt_template_version() {
  return "1-" + content_hash(std::string(kSystemTemplate) + kUserTemplate).substr(0, 8);
}

llm::Prompt build_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                         const std::vector<Feedback>& feedback) {
  std::string tensors;
  const auto all = spec.tensors();
  for (size_t i = 0; i < all.size(); ++i)
    tensors += "- binding " + std::to_string(i) + ", " + (i < spec.inputs.size() ? "input " : "output ") +
               shape_text(all[i]) + "\n";
  std::string params;
  if (!spec.params.empty()) {
    params = "\n## Parameters (the reference reads them as params.get(\"name\"))\n";
    for (const auto& [name, value] : spec.params) params += "- " + name + " = " + number(value) + "\n";
  }
  std::string user = kUserTemplate;
  replace_all(user, "{{op}}", spec.name);
  replace_all(user, "{{tensors}}", tensors);
  replace_all(user, "{{params}}", params);
  replace_all(user, "{{atol}}", number(spec.atol));
  replace_all(user, "{{rtol}}", number(spec.rtol));
  replace_all(user, "{{device}}", device_text(device));
  replace_all(user, "{{feedback}}", feedback_text(feedback));
  // Last: the description and the reference are user text that may contain something like a placeholder.
  replace_all(user, "{{description}}", spec.description);
  replace_all(user, "{{reference}}", reference_text);
  return {kSystemTemplate, user, prompt_template_version()};
}

}  // namespace kernelgen
