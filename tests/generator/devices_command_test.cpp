// `kernelgen devices` on described devices: what the prompt tells a model about each, and its peaks once a
// build step measured them, read from the candidate log's device_peaks.json and never measured here.
#include "kernelgen/devices/devices_command.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernelgen/device.hpp"
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A GPU with NV cooperative matrices, f16 arithmetic and 16-bit storage but no 8-bit storage.
DeviceInfo gpu() {
  DeviceInfo info;
  info.index = 1;
  info.name = "Fixture GPU";
  info.type = "discrete";
  info.driver = "fixture driver 1.0";
  info.uuid = "8c3e5a7b-0d1f-2a3b-4c5d-6e7f8091a2b3";
  info.api_version = (1u << 22) | (3u << 12);
  info.subgroup_size = 32;
  info.subgroup_operations = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  info.max_workgroup_invocations = 1024;
  info.max_workgroup_size = {1024, 1024, 64};
  info.max_shared_memory_bytes = 49152;
  info.extensions = {"VK_KHR_16bit_storage", "VK_KHR_shader_float16_int8", "VK_NV_cooperative_matrix"};
  info.features.storage_buffer_16bit = true;
  info.features.cooperative_matrix_nv = true;
  info.features.shader_float16 = true;
  info.features.shader_int16 = true;
  return info;
}

TEST(Devices, SummaryHasTheCapabilitiesThePromptUses) {
  const test::ScratchDir dir;
  const json devices = devices_summary({gpu()}, dir.path() / "device_peaks.json");
  ASSERT_EQ(devices.size(), 1u);
  const json& device = devices[0];
  EXPECT_EQ(device["index"], 1);
  EXPECT_EQ(device["name"], "Fixture GPU");
  EXPECT_EQ(device["uuid"], "8c3e5a7b-0d1f-2a3b-4c5d-6e7f8091a2b3");
  EXPECT_EQ(device["subgroup_size"], 32);
  EXPECT_EQ(device["subgroup_operations"], json({"basic", "arithmetic"}));
  EXPECT_EQ(device["max_shared_memory_bytes"], 49152);
  EXPECT_EQ(device["max_workgroup_size"], json({1024, 1024, 64}));
  EXPECT_EQ(device["features"]["storage_buffer_16bit"], true);
  EXPECT_EQ(device["features"]["storage_buffer_8bit"], false);
  EXPECT_EQ(device["features"]["shader_float16"], true);
  EXPECT_EQ(device["features"]["shader_int8"], false);
  EXPECT_EQ(device["features"]["cooperative_matrix_nv"], true);
  EXPECT_EQ(device["features"]["cooperative_matrix_khr"], false);
  const json& tensor = device["tensor_extensions"];
  ASSERT_EQ(tensor.size(), 5u);
  EXPECT_EQ(tensor[0], json({{"extension", "VK_NV_cooperative_matrix"}, {"glsl", "GL_NV_cooperative_matrix"},
                             {"device", true}, {"compiles_here", true}, {"runtime_enables", true}}));
  EXPECT_EQ(tensor[1]["extension"], "VK_KHR_cooperative_matrix");
  EXPECT_EQ(tensor[1]["device"], false);
  EXPECT_EQ(tensor[1]["runtime_enables"], false);
  EXPECT_THAT(device["prompt_extensions"].get<std::vector<std::string>>(),
              ElementsAre("VK_NV_cooperative_matrix", "VK_KHR_shader_float16_int8", "VK_KHR_16bit_storage"));
  EXPECT_TRUE(device["peaks"].is_null());
}

// The cooperative-matrix features, each under its own name: with one of them on at a time, only its key is
// true.
TEST(Devices, SummaryHasEachCooperativeMatrixFeatureUnderItsName) {
  const test::ScratchDir dir;
  const std::pair<const char*, bool DeviceFeatures::*> features[] = {
      {"cooperative_matrix_nv", &DeviceFeatures::cooperative_matrix_nv},
      {"cooperative_matrix_khr", &DeviceFeatures::cooperative_matrix_khr},
      {"cooperative_matrix_workgroup_scope", &DeviceFeatures::cooperative_matrix_workgroup_scope},
      {"cooperative_matrix_flexible_dimensions", &DeviceFeatures::cooperative_matrix_flexible_dimensions},
      {"cooperative_matrix_reductions", &DeviceFeatures::cooperative_matrix_reductions},
      {"cooperative_matrix_conversions", &DeviceFeatures::cooperative_matrix_conversions},
      {"cooperative_matrix_per_element_operations",
       &DeviceFeatures::cooperative_matrix_per_element_operations},
      {"cooperative_matrix_tensor_addressing", &DeviceFeatures::cooperative_matrix_tensor_addressing},
      {"cooperative_matrix_block_loads", &DeviceFeatures::cooperative_matrix_block_loads},
  };
  for (const auto& [on, feature] : features) {
    DeviceInfo device = gpu();
    device.features.cooperative_matrix_nv = false;
    device.features.*feature = true;
    const json summary = devices_summary({device}, dir.path() / "device_peaks.json")[0]["features"];
    for (const auto& [name, unused] : features) {
      ASSERT_TRUE(summary.contains(name)) << name;
      EXPECT_EQ(summary[name], std::string(name) == on) << name << " with " << on << " on";
    }
  }
}

TEST(Devices, SummarySaysTheRuntimeEnablesKhrAndNv2CooperativeMatricesWhereTheDeviceHasTheirFeatures) {
  const test::ScratchDir dir;
  DeviceInfo device = gpu();
  device.extensions = {"VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix", "VK_NV_cooperative_matrix2"};
  device.features.cooperative_matrix_khr = true;
  device.features.cooperative_matrix_tensor_addressing = true;
  device.features.cooperative_matrix_workgroup_scope = true;
  const json tensor = devices_summary({device}, dir.path() / "device_peaks.json")[0]["tensor_extensions"];
  EXPECT_EQ(tensor[1]["extension"], "VK_KHR_cooperative_matrix");
  EXPECT_EQ(tensor[1]["runtime_enables"], true);
  EXPECT_EQ(tensor[2]["extension"], "VK_NV_cooperative_matrix2");
  EXPECT_EQ(tensor[2]["runtime_enables"], true);
  device.features.cooperative_matrix_workgroup_scope = false;
  EXPECT_EQ(devices_summary({device},
                            dir.path() / "device_peaks.json")[0]["tensor_extensions"][2]["runtime_enables"],
            false);
}

TEST(Devices, TextSaysWhatEachDeviceCanDo) {
  const test::ScratchDir dir;
  const std::string text = devices_text(devices_summary({gpu()}, dir.path() / "device_peaks.json"),
                                        dir.path() / "device_peaks.json");
  EXPECT_THAT(
      text,
      HasSubstr("1: Fixture GPU (discrete, fixture driver 1.0), subgroup 32, shared memory 49152 bytes"));
  EXPECT_THAT(text, HasSubstr("   uuid 8c3e5a7b-0d1f-2a3b-4c5d-6e7f8091a2b3 (KERNELGEN_DEVICE takes it"));
  EXPECT_THAT(text, HasSubstr("subgroup operations: basic, arithmetic"));
  EXPECT_THAT(text, HasSubstr("16-bit: storage yes, f16 arithmetic yes, int16 yes"));
  EXPECT_THAT(text, HasSubstr("8-bit: storage no, int8 arithmetic no"));
  EXPECT_THAT(text, HasSubstr("tensor cores (device / this glslang compiles / runtime enables):\n"
                              "     VK_NV_cooperative_matrix yes / GL_NV_cooperative_matrix yes / yes\n"));
  EXPECT_THAT(text, HasSubstr("     VK_NV_cooperative_matrix2 no / GL_NV_cooperative_matrix2 "));
  EXPECT_THAT(text, HasSubstr("peaks: not measured yet (a build step that searches measures them into " +
                              (dir.path() / "device_peaks.json").string() + ")"));
}

// An Intel GPU's range (8 to 32) where compute shaders can require a size; nothing where they cannot.
TEST(Devices, TheSubgroupSizesAKernelCanRequireAreShownWhereItCan) {
  const test::ScratchDir dir;
  const auto peaks = dir.path() / "device_peaks.json";
  DeviceInfo ranged = gpu();
  ranged.min_subgroup_size = 8;
  ranged.max_subgroup_size = 32;
  ranged.required_subgroup_size_stages = VK_SHADER_STAGE_COMPUTE_BIT;
  ranged.max_compute_workgroup_subgroups = 64;
  ranged.features.subgroup_size_control = true;
  const json summary = devices_summary({ranged}, peaks);
  EXPECT_EQ(summary[0]["subgroup_size_range"], json({{"min", 8}, {"max", 32}}));
  EXPECT_EQ(summary[0]["features"]["subgroup_size_control"], true);
  EXPECT_THAT(devices_text(summary, peaks),
              HasSubstr("subgroup operations: basic, arithmetic\n"
                        "   subgroup sizes a kernel can require: 8 to 32 (VK_EXT_subgroup_size_control)\n"));

  ranged.required_subgroup_size_stages = VK_SHADER_STAGE_FRAGMENT_BIT;
  for (const DeviceInfo& device : {gpu(), ranged}) {
    const json without = devices_summary({device}, peaks);
    EXPECT_TRUE(without[0]["subgroup_size_range"].is_null());
    EXPECT_THAT(devices_text(without, peaks), Not(HasSubstr("subgroup sizes a kernel can require")));
  }
}

TEST(Devices, ThePeaksAreThoseMeasuredForThisDeviceAndDriver) {
  const test::ScratchDir dir;
  const auto file = dir.path() / "device_peaks.json";
  DeviceInfo other_driver = gpu();
  other_driver.driver = "fixture driver 2.0";
  write_file_atomic(file, json({{peaks_key(other_driver), {{"gbytes_per_second", 1.0}, {"gflops", 2.0}}},
                                {peaks_key(gpu()), {{"gbytes_per_second", 3000.5}, {"gflops", 60000.3}}}})
                              .dump());
  const json devices = devices_summary({gpu()}, file);
  EXPECT_DOUBLE_EQ(devices[0]["peaks"]["gbytes_per_second"].get<double>(), 3000.5);
  EXPECT_DOUBLE_EQ(devices[0]["peaks"]["gflops"].get<double>(), 60000.3);
  const std::string text = devices_text(devices, file);
  EXPECT_THAT(text, HasSubstr("peaks: copy 3000.5 GB/s, f32 FMA 60000.3 GFLOP/s (" + file.string() + ")"));
  EXPECT_THAT(text, Not(HasSubstr("not measured")));
}

TEST(Devices, ADamagedPeaksFileOrEntryReadsAsNotMeasured) {
  const test::ScratchDir dir;
  const auto file = dir.path() / "device_peaks.json";
  for (const std::string& damaged : {"{\"" + peaks_key(gpu()) + "\": {\"gbytes_per_second\": 3000",
                                     "{\"" + peaks_key(gpu()) + "\": {\"gbytes_per_second\": \"fast\"}}"}) {
    write_file_atomic(file, damaged);
    EXPECT_TRUE(devices_summary({gpu()}, file)[0]["peaks"].is_null()) << damaged;
    EXPECT_TRUE(read_device_peaks(file).empty()) << damaged;
  }
}

}  // namespace
}  // namespace kernelgen
