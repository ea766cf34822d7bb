#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kernelgen {

struct DeviceInfo;

// `kernelgen devices`: every Vulkan device with the capabilities the prompt tells a model about and, once a
// build step has measured them, its peaks from `peaks_file` (<candidate log>/device_peaks.json; read, never
// measured). One object per device: index, name, type, driver, subgroup_size, subgroup_operations (names),
// subgroup_size_range ({"min", "max"}: the sizes a kernel can be made to run at, or null),
// max_workgroup_invocations, max_workgroup_size, max_workgroup_count, max_shared_memory_bytes,
// max_storage_buffer_range, timestamp_period_ns, features (the runtime's DeviceFeatures, by field name),
// tensor_extensions (kernelgen/compile/tensor_extensions.hpp: one {"extension", "glsl", "device",
// "compiles_here", "runtime_enables"} each), prompt_extensions and peaks ({"gbytes_per_second", "gflops"} or
// null).
nlohmann::json devices_summary(const std::vector<DeviceInfo>& devices,
                               const std::filesystem::path& peaks_file);
// devices_summary as text; `peaks_file` is named where the peaks are still to be measured.
std::string devices_text(const nlohmann::json& summary, const std::filesystem::path& peaks_file);

}  // namespace kernelgen
