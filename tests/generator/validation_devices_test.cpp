// validation_devices: which devices KERNELGEN_VALIDATION_DEVICES picks from those present, the selected one
// first; and a setting that picks nothing is an error naming it.
#include "kernelgen/validation/validation_devices.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kernelgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DeviceInfo device(uint32_t index, const std::string& name, const std::string& type) {
  DeviceInfo info;
  info.index = index;
  info.name = name;
  info.type = type;
  return info;
}

const std::vector<DeviceInfo> kMachine{device(0, "NVIDIA H100 80GB HBM3", "discrete"),
                                       device(1, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"),
                                       device(2, "Intel(R) UHD Graphics", "integrated")};

std::vector<uint32_t> indices(const std::vector<DeviceInfo>& devices) {
  std::vector<uint32_t> result;
  for (const DeviceInfo& d : devices) result.push_back(d.index);
  return result;
}

std::vector<uint32_t> chosen(const char* setting, const DeviceInfo& selected = kMachine[0]) {
  return indices(validation_devices(setting ? std::optional<std::string>(setting) : std::nullopt, kMachine, selected));
}

TEST(ValidationDevices, ByDefaultTheSelectedDeviceThenEveryCpuDevice) {
  EXPECT_THAT(chosen(nullptr), ElementsAre(0, 1));
  EXPECT_THAT(chosen(""), ElementsAre(0, 1));
  EXPECT_THAT(chosen(nullptr, kMachine[2]), ElementsAre(2, 1)) << "KERNELGEN_DEVICE picked the integrated GPU";
  EXPECT_THAT(chosen(nullptr, kMachine[1]), ElementsAre(1)) << "lavapipe selected: once";
}

TEST(ValidationDevices, OnAMachineWithOnlyLavapipeItIsTheOnlyOne) {
  const std::vector<DeviceInfo> ci{device(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu")};
  EXPECT_THAT(indices(validation_devices(std::nullopt, ci, ci[0])), ElementsAre(0));
}

TEST(ValidationDevices, AllGpuAndCpuSelectByKindWithTheSelectedFirst) {
  EXPECT_THAT(chosen("all"), ElementsAre(0, 1, 2));
  EXPECT_THAT(chosen("all", kMachine[2]), ElementsAre(2, 0, 1));
  EXPECT_THAT(chosen("gpu"), ElementsAre(0, 2));
  EXPECT_THAT(chosen("GPU", kMachine[2]), ElementsAre(2, 0));
  EXPECT_THAT(chosen("cpu"), ElementsAre(1));
}

TEST(ValidationDevices, AListOfIndicesAndNamePartsInItsOwnOrderWithoutRepeats) {
  EXPECT_THAT(chosen("1"), ElementsAre(1));
  EXPECT_THAT(chosen("llvmpipe, 0"), ElementsAre(1, 0));
  EXPECT_THAT(chosen("h100,0,LLVMPIPE"), ElementsAre(0, 1));
}

// A name part names the first of two GPUs of one model; their UUIDs (nvidia-smi's, with or without "GPU-") name
// either.
TEST(ValidationDevices, TwoGpusOfOneModelAreToldApartByTheirUuids) {
  DeviceInfo first = device(0, "NVIDIA H200", "discrete");
  DeviceInfo second = device(1, "NVIDIA H200", "discrete");
  first.uuid = "93fcd8e8-fef4-d11a-40a9-69b5599b8bf5";
  second.uuid = "61942151-fafe-4243-2a7d-36595e107d89";
  const std::vector<DeviceInfo> machine{first, second};
  EXPECT_THAT(indices(validation_devices("h200", machine, first)), ElementsAre(0));
  EXPECT_THAT(indices(validation_devices("GPU-61942151-fafe-4243-2a7d-36595e107d89", machine, first)),
              ElementsAre(1));
  EXPECT_THAT(indices(validation_devices("61942151-FAFE-4243-2a7d-36595e107d89,93fcd8e8-fef4-d11a-40a9-69b5599b8bf5",
                                         machine, first)),
              ElementsAre(1, 0));
}

TEST(ValidationDevices, ASettingThatPicksNothingIsAnErrorListingTheDevices) {
  for (const char* bad : {"7", "radeon", "0,,1", ","}) {
    try {
      chosen(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(std::string("KERNELGEN_VALIDATION_DEVICES='") + bad + "'"));
      EXPECT_THAT(error.what(), HasSubstr("1: llvmpipe (LLVM 15.0.6, 256 bits) (cpu)"));
    }
  }
  const std::vector<DeviceInfo> gpu_only{kMachine[0]};
  try {
    validation_devices("cpu", gpu_only, gpu_only[0]);
    ADD_FAILURE() << "cpu without a CPU device";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("mesa-vulkan-drivers"));
  }
}

// A GPU with tensor cores and a CPU device without: everything but cooperative matrices on both.
DeviceInfo able_device(uint32_t index, const std::string& name, const std::string& type, bool cooperative_matrix) {
  DeviceInfo info = device(index, name, type);
  info.features.storage_buffer_16bit = info.features.shader_float16 = info.features.vulkan_memory_model = true;
  info.features.cooperative_matrix_nv = cooperative_matrix;
  info.subgroup_operations = 0xff;
  return info;
}

const std::string kCooperativeMatrixKernel = R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer C { float c[]; };
void main() {
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 8> m = fcoopmatNV<32, gl_ScopeSubgroup, 16, 8>(1.0);
  coopMatStoreNV(m, c, 0u, 8u, false);
}
)";

TEST(DevicesThatRun, AVariantOnCooperativeMatricesRunsOnlyWhereTheDeviceHasThem) {
  const std::vector<DeviceInfo> devices{able_device(1, "llvmpipe", "cpu", false),
                                        able_device(0, "NVIDIA H100 80GB HBM3", "discrete", true)};
  const DevicesForKernel split = devices_that_run(devices, kCooperativeMatrixKernel);
  EXPECT_THAT(indices(split.able), ElementsAre(0));
  ASSERT_EQ(split.unable.size(), 1u);
  EXPECT_EQ(split.unable[0].first.index, 1u);
  EXPECT_EQ(split.unable[0].second, "CooperativeMatrixNV");
  const std::string plain = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
  EXPECT_THAT(indices(devices_that_run(devices, plain).able), ElementsAre(1, 0));
}

TEST(DevicesThatRun, AKernelThatDoesNotCompileGoesToEveryDeviceSoThatValidationSaysWhy) {
  const std::vector<DeviceInfo> devices{able_device(1, "llvmpipe", "cpu", false)};
  EXPECT_THAT(indices(devices_that_run(devices, "#version 450\nvoid main() { undeclared = 1; }\n").able),
              ElementsAre(1));
  EXPECT_THAT(indices(devices_that_run(devices, kCooperativeMatrixKernel).able), ElementsAre());
}

}  // namespace
}  // namespace kernelgen
