// The tensor-core extensions a device may have: whether this build's glslang compiles each one's GLSL (probed),
// and what the prompt then tells a model it may use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kernelgen/compile.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/prompt.hpp"
#include "kernelgen/tensor_extensions.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// glslang's major version, from "glslang 12.0.0".
int glslang_major() { return std::stoi(compiler_version().substr(compiler_version().find(' ') + 1)); }

// An H100 as its driver describes itself: all five extensions, the NV cooperative matrix feature enabled.
DeviceInfo h100() {
  DeviceInfo info;
  info.name = "NVIDIA H100 80GB HBM3";
  info.type = "discrete";
  info.subgroup_size = 32;
  info.max_workgroup_invocations = 1024;
  info.max_workgroup_size = {1024, 1024, 64};
  info.max_shared_memory_bytes = 49152;
  info.extensions = {"VK_KHR_cooperative_matrix", "VK_KHR_shader_bfloat16", "VK_NV_cooperative_matrix",
                     "VK_NV_cooperative_matrix2", "VK_NV_cooperative_vector"};  // sorted, as DeviceInfo keeps them
  info.features.cooperative_matrix_nv = true;
  info.features.shader_float16 = true;
  info.features.storage_buffer_16bit = true;
  return info;
}

// The glslang versions that first compiled each (glslang's CHANGES.md): the probe must agree with this build's.
TEST(TensorExtensions, TheProbesAgreeWithThisGlslangsVersion) {
  EXPECT_TRUE(glsl_extension_compiles("GL_NV_cooperative_matrix")) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_KHR_cooperative_matrix"), glslang_major() >= 13) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_NV_cooperative_matrix2"), glslang_major() >= 15) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_EXT_bfloat16"), glslang_major() >= 15) << compiler_version();
  EXPECT_FALSE(glsl_extension_compiles("GL_EXT_not_an_extension"));
}

TEST(TensorExtensions, OnlyTheNvCooperativeMatrixIsEnabledByTheRuntime) {
  const auto extensions = tensor_extensions(h100());
  ASSERT_EQ(extensions.size(), 5u);
  for (const TensorExtension& extension : extensions) {
    EXPECT_TRUE(extension.device_has) << extension.vulkan;
    EXPECT_EQ(extension.runtime_enables, extension.vulkan == "VK_NV_cooperative_matrix") << extension.vulkan;
  }
  DeviceInfo without_the_feature = h100();
  without_the_feature.features.cooperative_matrix_nv = false;
  EXPECT_FALSE(tensor_extensions(without_the_feature)[0].runtime_enables);
}

OpSpec small_op() {
  return parse_op_spec(nlohmann::json::parse(R"({
    "contract": 2, "name": "copy", "description": "y = x",
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["n"]}],
    "dims": {"n": [1, 7]}, "bench_dims": {"n": 1024}
  })"));
}

TEST(TensorExtensions, ThePromptNamesWhatAKernelMayUseAndWhatNot) {
  const std::string user = build_prompt(small_op(), "reference", h100(), {}).user;
  EXPECT_THAT(user, HasSubstr("- tensor cores: a kernel may use GL_NV_cooperative_matrix (VK_NV_cooperative_matrix)\n"));
  const std::string refused = glslang_major() >= 13 ? "not enabled by kernelgen's runtime"
                                                     : "this glslang does not compile it";
  EXPECT_THAT(user, HasSubstr("- tensor-core extensions a kernel may not use here: GL_KHR_cooperative_matrix "
                              "(VK_KHR_cooperative_matrix: " + refused + ")"));
  EXPECT_THAT(user, HasSubstr("GL_NV_cooperative_vector (VK_NV_cooperative_vector: "));
}

TEST(TensorExtensions, APromptForADeviceWithoutTensorCoresSaysNothingOfThem) {
  DeviceInfo cpu = h100();
  cpu.extensions.clear();
  cpu.features.cooperative_matrix_nv = false;
  const std::string user = build_prompt(small_op(), "reference", cpu, {}).user;
  EXPECT_THAT(user, Not(HasSubstr("tensor cores")));
  EXPECT_THAT(user, Not(HasSubstr("tensor-core")));
  EXPECT_THAT(user, Not(HasSubstr("VK_NV_cooperative_matrix")));
}

}  // namespace
}  // namespace kernelgen
