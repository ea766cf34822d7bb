// The tensor-core extensions a device may have: whether this build's glslang compiles each one's GLSL
// (probed), whether the runtime enables it on the device, and what the prompt then tells a model it may use,
// with the rules of each usable one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/compile/tensor_extensions.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/search/prompt.hpp"

namespace kernelgen {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// glslang's major and minor version, from "glslang 15.2.0".
std::pair<int, int> glslang_version() {
  const std::string version = compiler_version().substr(compiler_version().find(' ') + 1);
  const size_t dot = version.find('.');
  return {std::stoi(version), std::stoi(version.substr(dot + 1))};
}
int glslang_major() {
  return glslang_version().first;
}

// An H100 as its driver describes itself: all five extensions, with the features of the NV and KHR
// cooperative matrices and of VK_NV_cooperative_matrix2.
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
  DeviceFeatures& f = info.features;
  f.shader_float16 = true;
  f.storage_buffer_16bit = true;
  f.vulkan_memory_model = true;
  f.cooperative_matrix_nv = true;
  f.cooperative_matrix_khr = true;
  f.cooperative_matrix_workgroup_scope = true;
  f.cooperative_matrix_flexible_dimensions = true;
  f.cooperative_matrix_reductions = true;
  f.cooperative_matrix_conversions = true;
  f.cooperative_matrix_per_element_operations = true;
  f.cooperative_matrix_tensor_addressing = true;
  f.cooperative_matrix_block_loads = true;
  return info;
}

// The glslang versions that first compiled each (glslang's CHANGES.md): the probe must agree with this build's.
TEST(TensorExtensions, TheProbesAgreeWithThisGlslangsVersion) {
  EXPECT_TRUE(glsl_extension_compiles("GL_NV_cooperative_matrix")) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_KHR_cooperative_matrix"), glslang_major() >= 13) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_NV_cooperative_matrix2"), glslang_major() >= 15) << compiler_version();
  EXPECT_EQ(glsl_extension_compiles("GL_EXT_bfloat16"), glslang_version() >= std::make_pair(15, 3))
      << compiler_version();
  EXPECT_FALSE(glsl_extension_compiles("GL_EXT_not_an_extension"));
}

// Whether the runtime enables each extension on a device, by its Vulkan name.
std::map<std::string, bool> runtime_enables(const DeviceInfo& device) {
  std::map<std::string, bool> enables;
  for (const TensorExtension& extension : tensor_extensions(device))
    enables[extension.vulkan] = extension.runtime_enables;
  return enables;
}

TEST(TensorExtensions, TheRuntimeEnablesTheThreeCooperativeMatrixExtensionsWhereTheDeviceHasTheirFeatures) {
  const auto extensions = tensor_extensions(h100());
  ASSERT_EQ(extensions.size(), 5u);
  for (const TensorExtension& extension : extensions) EXPECT_TRUE(extension.device_has) << extension.vulkan;
  EXPECT_EQ(runtime_enables(h100()), (std::map<std::string, bool>{{"VK_NV_cooperative_matrix", true},
                                                                  {"VK_KHR_cooperative_matrix", true},
                                                                  {"VK_NV_cooperative_matrix2", true},
                                                                  {"VK_KHR_shader_bfloat16", false},
                                                                  {"VK_NV_cooperative_vector", false}}));
}

// What each feature takes away: VK_NV_cooperative_matrix2 builds on the KHR cooperative matrix and needs at
// least its tensor-addressed loads and workgroup-scope matrices; its other features only some kernels use.
TEST(TensorExtensions, EachCooperativeMatrixExtensionNeedsItsOwnFeatures) {
  struct Without {
    bool DeviceFeatures::*feature;
    bool nv, khr, nv2;  // what the runtime still enables without it
  };
  const Without cases[] = {
      {&DeviceFeatures::cooperative_matrix_nv, false, true, true},
      {&DeviceFeatures::cooperative_matrix_khr, true, false, false},
      {&DeviceFeatures::cooperative_matrix_tensor_addressing, true, true, false},
      {&DeviceFeatures::cooperative_matrix_workgroup_scope, true, true, false},
      {&DeviceFeatures::cooperative_matrix_reductions, true, true, true},
      {&DeviceFeatures::cooperative_matrix_conversions, true, true, true},
      {&DeviceFeatures::cooperative_matrix_per_element_operations, true, true, true},
      {&DeviceFeatures::cooperative_matrix_flexible_dimensions, true, true, true},
      {&DeviceFeatures::cooperative_matrix_block_loads, true, true, true},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    DeviceInfo device = h100();
    device.features.*cases[i].feature = false;
    auto enables = runtime_enables(device);
    EXPECT_EQ(enables["VK_NV_cooperative_matrix"], cases[i].nv) << "case " << i;
    EXPECT_EQ(enables["VK_KHR_cooperative_matrix"], cases[i].khr) << "case " << i;
    EXPECT_EQ(enables["VK_NV_cooperative_matrix2"], cases[i].nv2) << "case " << i;
  }
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
  ASSERT_TRUE(glsl_extension_compiles("GL_NV_cooperative_matrix2"))
      << "the toolchain's glslang is 15.1 or later";
  const std::string user = build_prompt(small_op(), "reference", h100(), {}).user;
  EXPECT_THAT(
      user, HasSubstr("- tensor cores: a kernel may use GL_NV_cooperative_matrix (VK_NV_cooperative_matrix), "
                      "GL_KHR_cooperative_matrix (VK_KHR_cooperative_matrix), GL_NV_cooperative_matrix2 "
                      "(VK_NV_cooperative_matrix2)\n"));
  const std::string bfloat16 = glsl_extension_compiles("GL_EXT_bfloat16")
                                   ? "not enabled by kernelgen's runtime"
                                   : "this glslang does not compile it";
  const std::string unusable = "- tensor-core extensions a kernel may not use here: ";
  EXPECT_THAT(user, HasSubstr(unusable + "GL_EXT_bfloat16 (VK_KHR_shader_bfloat16: " + bfloat16 +
                              "), GL_NV_cooperative_vector (VK_NV_cooperative_vector: "));
}

TEST(Prompt, GivesTheSubgroupSizeItsRangeWhereTheDeviceHasOneAndSaysNotToAssumeOne) {
  DeviceInfo fixed = h100();
  fixed.min_subgroup_size = fixed.max_subgroup_size = 32;
  const std::string rule =
      "- validation runs a kernel at more than one subgroup size where the device allows: read "
      "gl_SubgroupSize, never assume one\n";
  const std::string one = build_prompt(small_op(), "reference", fixed, {}).user;
  EXPECT_THAT(one,
              AllOf(HasSubstr("), subgroup size 32\n" + rule), Not(HasSubstr("it runs kernels at sizes"))));
  DeviceInfo ranged = h100();
  ranged.min_subgroup_size = 8;
  ranged.max_subgroup_size = 64;
  EXPECT_THAT(build_prompt(small_op(), "reference", ranged, {}).user,
              HasSubstr("), subgroup size 32 (it runs kernels at sizes 8 to 64)\n" + rule));
}

// The lines the prompt adds under "- tensor cores:", one per usable extension, in the order they are named.
std::vector<std::string> rule_lines(const std::string& user) {
  std::vector<std::string> lines;
  std::istringstream text(user);
  for (std::string line; std::getline(text, line);)
    if (line.rfind("  - GL_", 0) == 0) lines.push_back(line.substr(0, line.find(':') + 1));
  return lines;
}

TEST(TensorExtensions, ThePromptGivesTheRulesOfEachUsableExtensionUnderTheTensorCoreLine) {
  const std::string user = build_prompt(small_op(), "reference", h100(), {}).user;
  EXPECT_THAT(rule_lines(user), ElementsAre("  - GL_NV_cooperative_matrix:", "  - GL_KHR_cooperative_matrix:",
                                            "  - GL_NV_cooperative_matrix2:"));
  const size_t usable = user.find("- tensor cores: a kernel may use ");
  ASSERT_NE(usable, std::string::npos);
  EXPECT_EQ(user.find("\n  - GL_NV_cooperative_matrix: ", usable), user.find('\n', usable))
      << "the rules follow the line that names the extensions";
  EXPECT_THAT(user, HasSubstr("\n  - GL_NV_cooperative_matrix2: needs GL_KHR_cooperative_matrix too; "));
  EXPECT_THAT(user, HasSubstr("coopMatLoadTensorNV"));
}

TEST(TensorExtensions, ThePromptGivesNoRulesForAnExtensionTheRuntimeDoesNotEnable) {
  DeviceInfo without_khr = h100();
  without_khr.features.cooperative_matrix_khr = false;
  const std::string user = build_prompt(small_op(), "reference", without_khr, {}).user;
  EXPECT_THAT(rule_lines(user), ElementsAre("  - GL_NV_cooperative_matrix:"));
  EXPECT_THAT(user,
              HasSubstr("GL_KHR_cooperative_matrix (VK_KHR_cooperative_matrix: not enabled by kernelgen's "
                        "runtime), GL_NV_cooperative_matrix2 (VK_NV_cooperative_matrix2: not enabled by "
                        "kernelgen's runtime)"));
  EXPECT_THAT(user, Not(HasSubstr("coopMatLoadTensorNV")));
}

TEST(TensorExtensions, APromptForADeviceWithoutTensorCoresSaysNothingOfThem) {
  DeviceInfo cpu = h100();
  cpu.extensions.clear();
  cpu.features = DeviceFeatures{};
  const std::string user = build_prompt(small_op(), "reference", cpu, {}).user;
  EXPECT_THAT(user, Not(HasSubstr("tensor cores")));
  EXPECT_THAT(user, Not(HasSubstr("tensor-core")));
  EXPECT_THAT(user, Not(HasSubstr("VK_NV_cooperative_matrix")));
  EXPECT_THAT(rule_lines(user), ::testing::IsEmpty());
}

}  // namespace
}  // namespace kernelgen
