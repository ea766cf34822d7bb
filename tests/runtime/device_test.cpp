// Device: picking a Vulkan device by index, by UUID, by name or by type, through DeviceOptions or $KERNELGEN_DEVICE;
// reporting and enabling the optional features that f16 and 8-bit tensors need.
#include "kernelgen/device.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "scoped_env.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

bool lists_llvmpipe() {
  const auto devices = Device::list();
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceInfo& info) { return info.name.find("llvmpipe") != std::string::npos; });
}

TEST(Device, ListsEveryDeviceWithItsLoaderIndex) {
  const auto devices = Device::list();
  ASSERT_FALSE(devices.empty());
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, i);
    EXPECT_FALSE(devices[i].name.empty());
    EXPECT_THAT((std::vector<std::string>{"discrete", "integrated", "virtual", "cpu", "other"}),
                ::testing::Contains(devices[i].type));
  }
}

TEST(Device, DefaultOpensAComputeQueueOnSomeDevice) {
  const test::ScopedEnv no_selector("KERNELGEN_DEVICE", nullptr);
  const Device device;
  EXPECT_NE(device.vk_device(), VK_NULL_HANDLE);
  EXPECT_NE(device.vk_queue(), VK_NULL_HANDLE);
  EXPECT_NE(device.vk_command_pool(), VK_NULL_HANDLE);
  EXPECT_FALSE(device.info().name.empty());
  EXPECT_GT(device.info().max_workgroup_invocations, 0u);
  EXPECT_GT(device.info().max_workgroup_count[0], 0u);
}

TEST(Device, SelectsByIndex) {
  const Device device(DeviceOptions{.selector = "0"});
  EXPECT_EQ(device.info().index, 0u);
  EXPECT_EQ(device.info().name, Device::list().at(0).name);
}

TEST(Device, SelectsByCaseInsensitiveNameSubstring) {
  if (!lists_llvmpipe()) GTEST_SKIP() << "no llvmpipe (lavapipe) device on this machine";
  const Device device(DeviceOptions{.selector = "LLVMpipe"});
  EXPECT_THAT(device.info().name, HasSubstr("llvmpipe"));
  EXPECT_EQ(device.info().type, "cpu");
}

// The UUID tells two GPUs of one model apart, in the form nvidia-smi prints (with or without its "GPU-", any
// case), and it is the same device's in every listing.
TEST(Device, SelectsByUuidWithOrWithoutNvidiaSmisPrefix) {
  const auto devices = Device::list();
  const Device first(DeviceOptions{.selector = "0"});
  const std::string uuid = first.info().uuid;
  EXPECT_THAT(uuid, ::testing::MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
  EXPECT_EQ(uuid, devices.at(0).uuid);
  EXPECT_EQ(Device(DeviceOptions{.selector = uuid}).info().index, 0u);
  std::string upper = "GPU-" + uuid;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  const test::ScopedEnv selector("KERNELGEN_DEVICE", upper.c_str());
  EXPECT_EQ(Device().info().index, 0u);
  std::string other = uuid;
  other.back() = other.back() == '0' ? '1' : '0';
  EXPECT_FALSE(matches_selector(devices.at(0), other));
}

TEST(Device, KernelgenDeviceSelectsByName) {
  if (!lists_llvmpipe()) GTEST_SKIP() << "no llvmpipe (lavapipe) device on this machine";
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "llvmpipe");
  const Device device;
  EXPECT_THAT(device.info().name, HasSubstr("llvmpipe"));
}

TEST(Device, KernelgenDeviceSelectsByIndex) {
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "0");
  const Device device;
  EXPECT_EQ(device.info().index, 0u);
}

TEST(Device, OptionsSelectorOverridesKernelgenDevice) {
  const test::ScopedEnv selector("KERNELGEN_DEVICE", "no-such-device");
  const Device device(DeviceOptions{.selector = "0"});
  EXPECT_EQ(device.info().index, 0u);
}

TEST(Device, ASelectorMatchingNothingThrowsListingTheDevices) {
  const auto devices = Device::list();
  try {
    const Device device(DeviceOptions{.selector = "no-such-gpu"});
    FAIL() << "opened " << device.info().name << " for selector no-such-gpu";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("KERNELGEN_DEVICE='no-such-gpu'"));
    for (const DeviceInfo& info : devices)
      EXPECT_THAT(error.what(), HasSubstr(std::to_string(info.index) + ": " + info.name + " (" + info.type +
                                          ") uuid " + info.uuid));
  }
}

TEST(Device, AnIndexPastTheLastDeviceThrows) {
  const std::string past = std::to_string(Device::list().size());
  const test::ScopedEnv selector("KERNELGEN_DEVICE", past.c_str());
  EXPECT_THROW(Device(), std::runtime_error);
}

TEST(Device, RobustBufferAccessIsOnlyOnWhenAsked) {
  EXPECT_FALSE(Device().robust_buffer_access());
  VkPhysicalDeviceFeatures features{};
  const Device robust(DeviceOptions{.robust_buffer_access = true});
  vkGetPhysicalDeviceFeatures(robust.vk_physical_device(), &features);
  EXPECT_EQ(robust.robust_buffer_access(), static_cast<bool>(features.robustBufferAccess));
}

TEST(Device, FindsMemoryTypesByFlagsAndRejectsImpossibleOnes) {
  const Device device;
  const int host_visible = device.memory_type(~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  EXPECT_GE(host_visible, 0);
  EXPECT_EQ(device.memory_type(0u, 0), -1) << "no allowed type";
  EXPECT_EQ(device.memory_type(~0u, VK_MEMORY_PROPERTY_FLAG_BITS_MAX_ENUM), -1) << "no type has every flag";
}

bool lists(const DeviceInfo& info, const char* extension) {
  return std::find(info.extensions.begin(), info.extensions.end(), extension) != info.extensions.end();
}

// The device's features as vkGetPhysicalDeviceFeatures2 reports them through the per-feature structs (the
// runtime asks through the Vulkan 1.1/1.2 aggregates where it can), each struct asked for only where the
// device knows it.
DeviceFeatures queried_features(const Device& device) {
  const DeviceInfo& info = device.info();
  const bool vulkan12 = info.api_version >= VK_API_VERSION_1_2;
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16_int8{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  void** tail = &features.pNext;
  const auto ask = [&](auto& query, const char* extension) {
    if (!vulkan12 && !lists(info, extension)) return;
    *tail = &query;
    tail = &query.pNext;
  };
  ask(storage16, VK_KHR_16BIT_STORAGE_EXTENSION_NAME);
  ask(storage8, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  ask(float16_int8, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  vkGetPhysicalDeviceFeatures2(device.vk_physical_device(), &features);
  return {.storage_buffer_16bit = storage16.storageBuffer16BitAccess == VK_TRUE,
          .storage_buffer_8bit = storage8.storageBuffer8BitAccess == VK_TRUE,
          .shader_float16 = float16_int8.shaderFloat16 == VK_TRUE,
          .shader_int8 = float16_int8.shaderInt8 == VK_TRUE,
          .shader_int16 = features.features.shaderInt16 == VK_TRUE,
          .shader_int64 = features.features.shaderInt64 == VK_TRUE,
          .shader_float64 = features.features.shaderFloat64 == VK_TRUE};
}

TEST(Device, ReportsTheOptionalFeaturesTheDriverReports) {
  const Device device;
  const DeviceFeatures expected = queried_features(device);
  const DeviceFeatures& got = device.info().features;
  EXPECT_EQ(got.storage_buffer_16bit, expected.storage_buffer_16bit);
  EXPECT_EQ(got.storage_buffer_8bit, expected.storage_buffer_8bit);
  EXPECT_EQ(got.shader_float16, expected.shader_float16);
  EXPECT_EQ(got.shader_int8, expected.shader_int8);
  EXPECT_EQ(got.shader_int16, expected.shader_int16);
  EXPECT_EQ(got.shader_int64, expected.shader_int64);
  EXPECT_EQ(got.shader_float64, expected.shader_float64);
}

TEST(Device, ListAndDescribeReportTheSameFeaturesAsAnOpenDevice) {
  const Device device;
  for (const DeviceInfo& info : {Device::list().at(device.info().index), Device::describe_selected()}) {
    EXPECT_EQ(info.features.storage_buffer_16bit, device.info().features.storage_buffer_16bit) << info.name;
    EXPECT_EQ(info.features.storage_buffer_8bit, device.info().features.storage_buffer_8bit) << info.name;
    EXPECT_EQ(info.features.shader_float16, device.info().features.shader_float16) << info.name;
    EXPECT_EQ(info.features.shader_int8, device.info().features.shader_int8) << info.name;
  }
}

// IEEE half-precision bits of a float that half represents exactly (zero or a normal half).
uint16_t half_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  if ((bits & 0x7fffffffu) == 0) return static_cast<uint16_t>(sign);
  const uint32_t exponent = ((bits >> 23) & 0xffu) - 127 + 15;
  return static_cast<uint16_t>(sign | exponent << 10 | (bits & 0x7fffffu) >> 13);
}

float from_half_bits(uint16_t half) {
  const uint32_t sign = (half & 0x8000u) << 16;
  if ((half & 0x7fffu) == 0) return std::bit_cast<float>(sign);
  const uint32_t exponent = ((half >> 10) & 0x1fu) - 15 + 127;
  return std::bit_cast<float>(sign | exponent << 23 | (half & 0x3ffu) << 13);
}

// Runs a two-binding shader (in at binding 0, out at binding 1) over 64 invocations.
template <class T>
std::vector<T> run_in_to_out(Device& device, const std::string& glsl, const std::vector<T>& in_values) {
  Kernel kernel(device, test::spirv_of(glsl), 2);
  Buffer in(device, in_values.size() * sizeof(T)), out(device, in_values.size() * sizeof(T));
  in.upload(std::span<const T>(in_values));
  Sequence sequence(device, 0);
  sequence.dispatch(kernel, {&in, &out}, {1, 1, 1}).run();
  return out.download<T>();
}

TEST(Device, RunsAShaderWithFloat16StorageAndArithmetic) {
  Device device;
  const DeviceFeatures& has = device.info().features;
  if (!has.storage_buffer_16bit || !has.shader_float16)
    GTEST_SKIP() << device.info().name << " lacks storageBuffer16BitAccess or shaderFloat16";
  std::vector<uint16_t> in(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = half_bits(static_cast<float>(i) * 0.25f - 4.0f);
  const auto out = run_in_to_out(device, R"(#version 450
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float16_t in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { float16_t out_values[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < in_values.length()) out_values[i] = in_values[i] * float16_t(2.0) + float16_t(0.5);
}
)",
                                 in);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(from_half_bits(out[i]), from_half_bits(in[i]) * 2.0f + 0.5f) << i;
}

TEST(Device, RunsAShaderWithUint8StorageAndArithmetic) {
  Device device;
  const DeviceFeatures& has = device.info().features;
  if (!has.storage_buffer_8bit || !has.shader_int8)
    GTEST_SKIP() << device.info().name << " lacks storageBuffer8BitAccess or shaderInt8";
  std::vector<uint8_t> in(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 4);
  const auto out = run_in_to_out(device, R"(#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer In { uint8_t in_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint8_t out_values[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < in_values.length()) out_values[i] = in_values[i] * uint8_t(3) + uint8_t(1);
}
)",
                                 in);
  // 8-bit arithmetic wraps modulo 256.
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<uint8_t>(in[i] * 3 + 1)) << i;
}

TEST(Device, MovesWithoutLosingTheDevice) {
  Device first;
  const VkDevice handle = first.vk_device();
  Device second(std::move(first));
  EXPECT_EQ(second.vk_device(), handle);
}

}  // namespace
}  // namespace kernelgen

namespace kernelgen {
namespace {

TEST(MatchesSelector, AnIndexOrACaseInsensitivePartOfTheName) {
  DeviceInfo device;
  device.index = 1;
  device.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  EXPECT_TRUE(matches_selector(device, "1"));
  EXPECT_TRUE(matches_selector(device, "LLVMpipe"));
  EXPECT_FALSE(matches_selector(device, "0"));
  EXPECT_FALSE(matches_selector(device, "radeon"));
  EXPECT_FALSE(matches_selector(device, ""));
  EXPECT_FALSE(matches_selector(device, "99999999999999999999999")) << "too large an index matches nothing";
}

TEST(Device, SpinWaitComesFromOptionsThenTheEnvironmentThenTheDeviceType) {
  {
    test::ScopedEnv unset("KERNELGEN_SPIN_WAIT_US", nullptr);
    Device device;
    EXPECT_EQ(device.spin_wait_us(), device.info().type == "cpu" ? 0u : 1000u);
  }
  test::ScopedEnv env("KERNELGEN_SPIN_WAIT_US", "250");
  EXPECT_EQ(Device().spin_wait_us(), 250u);
  DeviceOptions options;
  options.spin_wait_us = 7;
  EXPECT_EQ(Device(options).spin_wait_us(), 7u);
}

TEST(Device, ASpinWaitThatIsNotANumberIsRefusedNamingTheVariable) {
  test::ScopedEnv env("KERNELGEN_SPIN_WAIT_US", "fast");
  try {
    Device device;
    FAIL() << "KERNELGEN_SPIN_WAIT_US=fast was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("KERNELGEN_SPIN_WAIT_US='fast' is not a number of microseconds"));
  }
}

// The pipeline cache is written when the device closes and read when the next one opens; a file the driver
// does not recognise is ignored, not an error.
TEST(Device, KeepsThePipelineCacheInAFileBetweenDevices) {
  const std::string path = ::testing::TempDir() + "kernelgen_pipeline_cache_test.bin";
  std::remove(path.c_str());
  DeviceOptions options;
  options.pipeline_cache_path = path;
  {
    Device device(options);
    Kernel kernel(device, test::spirv_of(test::kAddOne), 2);
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr) << "no cache written at " << path;
  std::fseek(file, 0, SEEK_END);
  EXPECT_GT(std::ftell(file), 16) << "the cache holds more than its header";
  std::fclose(file);
  {
    Device device(options);  // reads it
    Kernel kernel(device, test::spirv_of(test::kAddOne), 2);
  }
  file = std::fopen(path.c_str(), "wb");
  std::fputs("not a pipeline cache", file);
  std::fclose(file);
  EXPECT_NO_THROW(Device{options});
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kernelgen
