#include "kernelgen/devices/devices_command.hpp"

#include <cstdio>

#include "kernelgen/compile/tensor_extensions.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/search/prompt.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

json subgroup_operations(uint32_t flags) {
  static const std::pair<VkSubgroupFeatureFlagBits, const char*> kNames[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},
      {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"},
      {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"},
      {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"}};
  json names = json::array();
  for (const auto& [bit, name] : kNames)
    if (flags & bit) names.push_back(name);
  return names;
}

// The sizes a kernel can be made to run at (kernelgen/subgroup_size.hpp), or null where the device lets
// compute shaders require none.
json subgroup_size_range(const DeviceInfo& info) {
  if (!info.features.subgroup_size_control ||
      !(info.required_subgroup_size_stages & VK_SHADER_STAGE_COMPUTE_BIT))
    return nullptr;
  return {{"min", info.min_subgroup_size}, {"max", info.max_subgroup_size}};
}

json features(const DeviceFeatures& has) {
  return {{"storage_buffer_16bit", has.storage_buffer_16bit},
          {"storage_buffer_8bit", has.storage_buffer_8bit},
          {"shader_float16", has.shader_float16},
          {"shader_int8", has.shader_int8},
          {"shader_int16", has.shader_int16},
          {"shader_int64", has.shader_int64},
          {"shader_float64", has.shader_float64},
          {"vulkan_memory_model", has.vulkan_memory_model},
          {"vulkan_memory_model_device_scope", has.vulkan_memory_model_device_scope},
          {"cooperative_matrix_nv", has.cooperative_matrix_nv},
          {"cooperative_matrix_khr", has.cooperative_matrix_khr},
          {"cooperative_matrix_workgroup_scope", has.cooperative_matrix_workgroup_scope},
          {"cooperative_matrix_flexible_dimensions", has.cooperative_matrix_flexible_dimensions},
          {"cooperative_matrix_reductions", has.cooperative_matrix_reductions},
          {"cooperative_matrix_conversions", has.cooperative_matrix_conversions},
          {"cooperative_matrix_per_element_operations", has.cooperative_matrix_per_element_operations},
          {"cooperative_matrix_tensor_addressing", has.cooperative_matrix_tensor_addressing},
          {"cooperative_matrix_block_loads", has.cooperative_matrix_block_loads},
          {"pipeline_executable_info", has.pipeline_executable_info},
          {"subgroup_size_control", has.subgroup_size_control},
          {"compute_full_subgroups", has.compute_full_subgroups}};
}

std::string yes_no(const json& value) {
  return value.get<bool>() ? "yes" : "no";
}

std::string joined(const json& names) {
  std::string text;
  for (const json& name : names) text += (text.empty() ? "" : ", ") + name.get<std::string>();
  return text.empty() ? "none" : text;
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace

json devices_summary(const std::vector<DeviceInfo>& devices, const std::filesystem::path& peaks_file) {
  const std::vector<DevicePeaks> measured = read_device_peaks(peaks_file);
  json summary = json::array();
  for (const DeviceInfo& info : devices) {
    json peaks;
    for (const DevicePeaks& entry : measured)
      if (entry.device == peaks_key(info))
        peaks = {{"gbytes_per_second", entry.gbytes_per_second}, {"gflops", entry.gflops}};
    json tensor = json::array();
    for (const TensorExtension& extension : tensor_extensions(info))
      tensor.push_back({{"extension", extension.vulkan},
                        {"glsl", extension.glsl},
                        {"device", extension.device_has},
                        {"compiles_here", extension.compiles_here},
                        {"runtime_enables", extension.runtime_enables}});
    summary.push_back({{"index", info.index},
                       {"name", info.name},
                       {"type", info.type},
                       {"driver", info.driver},
                       {"uuid", info.uuid},
                       {"subgroup_size", info.subgroup_size},
                       {"subgroup_operations", subgroup_operations(info.subgroup_operations)},
                       {"subgroup_size_range", subgroup_size_range(info)},
                       {"max_workgroup_invocations", info.max_workgroup_invocations},
                       {"max_workgroup_size", info.max_workgroup_size},
                       {"max_workgroup_count", info.max_workgroup_count},
                       {"max_shared_memory_bytes", info.max_shared_memory_bytes},
                       {"max_storage_buffer_range", info.max_storage_buffer_range},
                       {"timestamp_period_ns", info.timestamp_period_ns},
                       {"features", features(info.features)},
                       {"tensor_extensions", tensor},
                       {"prompt_extensions", prompt_extensions(info)},
                       {"peaks", peaks}});
  }
  return summary;
}

std::string devices_text(const json& summary, const std::filesystem::path& peaks_file) {
  std::string text;
  for (const json& device : summary) {
    const json& has = device["features"];
    const json& size = device["max_workgroup_size"];
    text += std::to_string(device["index"].get<uint32_t>()) + ": " + device["name"].get<std::string>() +
            " (" + device["type"].get<std::string>() + ", " + device["driver"].get<std::string>() +
            "), subgroup " + std::to_string(device["subgroup_size"].get<uint32_t>()) + ", shared memory " +
            std::to_string(device["max_shared_memory_bytes"].get<uint32_t>()) + " bytes\n";
    text += "   uuid " + device["uuid"].get<std::string>() + " (KERNELGEN_DEVICE takes it, as it takes the index)\n";
    text += "   subgroup operations: " + joined(device["subgroup_operations"]) + "\n";
    if (const json& range = device["subgroup_size_range"]; range.is_object())
      text += "   subgroup sizes a kernel can require: " + std::to_string(range["min"].get<uint32_t>()) +
              " to " + std::to_string(range["max"].get<uint32_t>()) + " (VK_EXT_subgroup_size_control)\n";
    text += "   workgroups: up to " + std::to_string(device["max_workgroup_invocations"].get<uint32_t>()) +
            " invocations, " + std::to_string(size[0].get<uint32_t>()) + "x" +
            std::to_string(size[1].get<uint32_t>()) + "x" + std::to_string(size[2].get<uint32_t>()) + "\n";
    text += "   16-bit: storage " + yes_no(has["storage_buffer_16bit"]) + ", f16 arithmetic " +
            yes_no(has["shader_float16"]) + ", int16 " + yes_no(has["shader_int16"]) + "\n";
    text += "   8-bit: storage " + yes_no(has["storage_buffer_8bit"]) + ", int8 arithmetic " +
            yes_no(has["shader_int8"]) + "\n";
    text += "   64-bit: int64 " + yes_no(has["shader_int64"]) + ", float64 " + yes_no(has["shader_float64"]) +
            "\n";
    // A kernel (a VARIANT) may use one where the device has it, this glslang compiles its GLSL extension and
    // kernelgen's runtime enables it.
    text += "   tensor cores (device / this glslang compiles / runtime enables):\n";
    for (const json& extension : device["tensor_extensions"])
      text += "     " + extension["extension"].get<std::string>() + " " + yes_no(extension["device"]) + " / " +
              extension["glsl"].get<std::string>() + " " + yes_no(extension["compiles_here"]) + " / " +
              yes_no(extension["runtime_enables"]) + "\n";
    text += "   extensions the prompt names: " + joined(device["prompt_extensions"]) + "\n";
    const json& peaks = device["peaks"];
    text += peaks.is_object() ? "   peaks: copy " + format("%.1f", peaks["gbytes_per_second"].get<double>()) +
                                    " GB/s, f32 FMA " + format("%.1f", peaks["gflops"].get<double>()) +
                                    " GFLOP/s (" + peaks_file.string() + ")\n"
                              : "   peaks: not measured yet (a build step that searches measures them into " +
                                    peaks_file.string() + ")\n";
  }
  return text;
}

}  // namespace kernelgen
