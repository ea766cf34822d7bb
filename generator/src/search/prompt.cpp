#include "kernelgen/search/prompt.hpp"

#include <algorithm>
#include <cstdio>

#include "embedded_text.hpp"
#include "kernelgen/compile/tensor_extensions.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void replace_all(std::string& text, const std::string& placeholder, const std::string& value) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
}

std::string shape_text(const TensorSpec& tensor) {
  const DTypeInfo& dtype = dtype_info(tensor.dtype);
  std::string text = tensor.name + ": " + std::string(dtype.name) + "[" + join_extents(tensor.shape, ',') + "], GLSL " +
                     std::string(dtype.glsl_type);
  if (!tensor.symbolic()) text += " (" + std::to_string(tensor.elements()) + " elements)";
  if (tensor.index_of) text += "; every value is an index in [0, " + tensor.index_of->text() + ")";
  return text;
}

std::string list_text(const std::vector<int64_t>& values) {
  std::string text;
  for (int64_t value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

std::string dims_section(const OpSpec& spec, const DeviceInfo& device) {
  if (spec.dims.empty()) return "";
  std::string text = "\n## Symbolic dims (they vary from call to call)\n";
  const DimValues bench = spec.bench_dims(is_cpu_device(device));
  for (size_t d = 0; d < spec.dims.size(); ++d)
    text += "- " + spec.dims[d].name + ": validated at " + list_text(spec.dims[d].sizes) +
            ", 1 and a size that is not a multiple of your workgroup size; timed at " + std::to_string(bench[d]) + "\n";
  return text;
}

std::string shape_rules(const OpSpec& spec) {
  if (spec.dims.empty())
    return "- Shapes are fixed: hard-code them. No push constants.\n"
           "- The launch grid is yours: put exactly one line `// kernelgen: dispatch X Y Z` in the shader (the number of\n"
           "  workgroups in x, y and z). The workgroup size is your `layout(local_size_x = ...) in;`.\n";
  std::string block = "layout(push_constant) uniform Dims {";
  for (const DimSpec& dim : spec.dims) block += " uint " + dim.name + ";";
  block += " } dims;";
  const std::string& first = spec.dims.front().name;
  return "- The dims arrive as push constants; declare exactly `" + block + "` and read `dims." + first +
         "`. Constant extents may be hard-coded. The kernel must be correct at every size: guard every index.\n"
         "- The launch grid is yours: put exactly one line `// kernelgen: dispatch X Y Z` in the shader, where X, Y\n"
         "  and Z are integer expressions over the dims (+ - * / %, parentheses, min(a, b), max(a, b); / floors; no\n"
         "  unary minus), e.g. `// kernelgen: dispatch (" + first + " + 63) / 64 1 1`. Each must be at least 1 at\n"
         "  every size. The workgroup size is your `layout(local_size_x = ...) in;`.\n";
}

std::string dtype_rules(const OpSpec& spec, const DeviceInfo& device) {
  std::vector<DType> used;
  for (const TensorSpec& tensor : spec.tensors())
    if (tensor.dtype != DType::f32 && std::find(used.begin(), used.end(), tensor.dtype) == used.end())
      used.push_back(tensor.dtype);
  std::string text;
  for (DType dtype : used) {
    const DTypeInfo& info = dtype_info(dtype);
    text += "- " + std::string(info.name) + " tensors are arrays of " + std::string(info.glsl_type);
    if (!info.glsl_extensions.empty()) {
      text += "; enable";
      std::string extensions(info.glsl_extensions);
      for (size_t at = 0; at < extensions.size();) {
        size_t end = extensions.find(' ', at);
        if (end == std::string::npos) end = extensions.size();
        text += " `#extension " + extensions.substr(at, end - at) + " : require`";
        at = end + 1;
      }
    }
    text += ".\n";
  }
  const bool half = std::find(used.begin(), used.end(), DType::f16) != used.end();
  if (half && !device.features.shader_float16)
    text += "- This device has no f16 arithmetic (shaderFloat16): convert f16 values to float to compute.\n";
  if (std::find(used.begin(), used.end(), DType::bf16) != used.end())
    text += "- A bf16 element is the upper 16 bits of a float (this glslang has no bf16 type or arithmetic): read it\n"
            "  as `uintBitsToFloat(uint(v) << 16)`, which is exact, and compute in float; write a float f rounded to\n"
            "  nearest even, `uint b = floatBitsToUint(f);\n"
            "  uint16_t(isnan(f) ? 0x7FC0u : (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16)`.\n";
  return text;
}

std::string tolerance_text(const OpSpec& spec) {
  std::string text;
  for (const TensorSpec& output : spec.outputs) {
    const Tolerance tolerance = spec.tolerance_of(output);
    text += (text.empty() ? "" : "; ") + output.name;
    if (tolerance.ulp > 0)
      text += ": not by atol and rtol but within " + number(tolerance.ulp) + " ulp of " +
              std::string(dtype_name(output.dtype)) +
              (tolerance.ulp < 1 ? ", the exact result rounded to nearest, ties to even (a truncation fails)" : "");
    else
      text += ": atol " + number(tolerance.atol) + ", rtol " + number(tolerance.rtol);
  }
  return text;
}

// What the device's tensor-core extensions allow a kernel here (kernelgen/compile/tensor_extensions.hpp):
// those it may use, and those the device has that this glslang cannot compile or the runtime does not enable.
// Nothing on a device without any. Part of {{device}}, filled in at run time: the templates' own text is part
// of every spec hash (prompt_template_version), so a line there would make every checked-in kernel stale when
// it changed.
std::string tensor_core_text(const DeviceInfo& device) {
  std::string usable, unusable, rules;
  for (const TensorExtension& extension : tensor_extensions(device)) {
    if (!extension.device_has) continue;
    if (extension.compiles_here && extension.runtime_enables) {
      usable += (usable.empty() ? "" : ", ") + extension.glsl + " (" + extension.vulkan + ")";
      if (!extension.rules.empty()) rules += "  - " + extension.glsl + ": " + extension.rules + "\n";
    } else {
      unusable += (unusable.empty() ? "" : ", ") + extension.glsl + " (" + extension.vulkan + ": " +
                  (extension.compiles_here ? "not enabled by kernelgen's runtime" : "this glslang does not compile it") +
                  ")";
    }
  }
  std::string text;
  if (!usable.empty()) text += "- tensor cores: a kernel may use " + usable + "\n" + rules;
  if (!unusable.empty()) text += "- tensor-core extensions a kernel may not use here: " + unusable + "\n";
  return text;
}

// The device's subgroup size, with the range it may run a kernel at where it has one, and the rule that
// follows from validation running a kernel at more than one size (validation/subgroup_sizes.hpp).
std::string subgroup_text(const DeviceInfo& device) {
  std::string text = "subgroup size " + std::to_string(device.subgroup_size);
  if (device.min_subgroup_size != 0 && device.min_subgroup_size != device.max_subgroup_size)
    text += " (it runs kernels at sizes " + std::to_string(device.min_subgroup_size) + " to " +
            std::to_string(device.max_subgroup_size) + ")";
  return text + "\n- validation runs a kernel at more than one subgroup size where the device allows: read " +
         "gl_SubgroupSize, never assume one";
}

std::string device_text(const DeviceInfo& device) {
  const auto& size = device.max_workgroup_size;
  std::string text = "- " + device.name + " (" + device.type + "), " + subgroup_text(device) + "\n";
  text += "- at most " + std::to_string(device.max_workgroup_invocations) +
          " invocations per workgroup, sizes up to " + std::to_string(size[0]) + "x" +
          std::to_string(size[1]) + "x" + std::to_string(size[2]) + "\n";
  text += "- " + std::to_string(device.max_shared_memory_bytes) + " bytes of shared memory per workgroup\n";
  std::string useful;
  for (const std::string& extension : prompt_extensions(device))
    useful += (useful.empty() ? "" : ", ") + extension;
  if (!useful.empty()) text += "- extensions: " + useful + "\n";
  text += tensor_core_text(device);
  text += std::string("- f16 arithmetic (shaderFloat16): ") + (device.features.shader_float16 ? "yes" : "no") +
          "; 16-bit storage: " + (device.features.storage_buffer_16bit ? "yes" : "no") +
          "; int8 arithmetic: " + (device.features.shader_int8 ? "yes" : "no") + "\n";
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

std::vector<std::string> prompt_extensions(const DeviceInfo& device) {
  std::vector<std::string> present;
  for (const char* extension :
       {"VK_NV_cooperative_matrix", "VK_KHR_cooperative_matrix", "VK_KHR_shader_float16_int8",
        "VK_KHR_16bit_storage", "VK_EXT_subgroup_size_control", "VK_KHR_shader_subgroup_extended_types"})
    if (has_extension(device, extension)) present.emplace_back(extension);
  return present;
}

std::string prompt_template_version() {
  return "2-" + content_hash(std::string(kSystemTemplate) + kUserTemplate).substr(0, 8);
}

std::string fill_op_template(std::string text, const OpSpec& spec, const std::string& reference_text,
                             const DeviceInfo& device, const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string tensors;
  const auto all = spec.tensors();
  for (size_t i = 0; i < all.size(); ++i)
    tensors +=
        "- binding " + std::to_string(i) + ", " + spec.binding_role(i) + " " + shape_text(all[i]) + "\n";
  if (!spec.scratch.empty())
    tensors +=
        "- The scratch bindings hold zeros when each call starts: they are for what the workgroups of one "
        "call\n"
        "  share (partial results, u32 arrival counters). No float atomics: a workgroup writes its partial "
        "result,\n"
        "  calls memoryBarrierBuffer(), then counts its arrival with atomicAdd on a u32 counter; the one "
        "that\n"
        "  arrives last combines every partial (declare the scratch `coherent` so that it reads the others'\n"
        "  writes). The kernel must leave every scratch element zero when it finishes (reset the counter, "
        "zero the\n"
        "  partials it read), since the next call must find them so. Only the outputs are compared.\n";
  std::string params;
  if (!spec.params.empty()) {
    params = "\n## Parameters (the reference reads them as params.get(\"name\"))\n";
    for (const auto& [name, value] : spec.params) params += "- " + name + " = " + number(value) + "\n";
  }
  replace_all(text, "{{op}}", spec.name);
  replace_all(text, "{{tensors}}", tensors);
  replace_all(text, "{{dims}}", dims_section(spec, device));
  replace_all(text, "{{params}}", params);
  replace_all(text, "{{shape_rules}}", shape_rules(spec));
  replace_all(text, "{{dtype_rules}}", dtype_rules(spec, device));
  replace_all(text, "{{tolerance}}", tolerance_text(spec));
  replace_all(text, "{{device}}", device_text(device));
  for (const auto& [placeholder, value] : extra) replace_all(text, placeholder, value);
  // Last: the description and the reference are user text that may contain something like a placeholder.
  replace_all(text, "{{description}}", spec.description);
  replace_all(text, "{{reference}}", reference_text);
  return text;
}

llm::Prompt build_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                         const std::vector<Feedback>& feedback) {
  return {kSystemTemplate,
          fill_op_template(kUserTemplate, spec, reference_text, device, {{"{{feedback}}", feedback_text(feedback)}}),
          prompt_template_version()};
}

}  // namespace kernelgen
