#include "kernelgen/compile/compile.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/libspirv.h>

#include <mutex>
#include <regex>
#include <string>

namespace kernelgen {

namespace {

// glslang keeps process-wide tables; initialise them once, on first use.
void initialise_glslang() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// GL_NV_cooperative_matrix2 exists for SPIR-V 1.6 alone (glslang refuses it for 1.5): a kernel that enables
// it is compiled for Vulkan 1.3, every other for Vulkan 1.2, so that it runs on 1.2 devices too.
bool needs_vulkan_1_3(const std::string& source) {
  static const std::regex enables(R"((^|\n)[ \t]*#[ \t]*extension[ \t]+GL_NV_cooperative_matrix2\b)");
  return std::regex_search(source, enables);
}

}  // namespace

Compilation compile_glsl(const std::string& source) {
  initialise_glslang();
  Compilation result;
  glslang::TShader shader(EShLangCompute);
  const char* text = source.c_str();
  const char* name = "kernel.comp";
  shader.setStringsWithLengthsAndNames(&text, nullptr, &name, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  const bool vulkan_1_3 = needs_vulkan_1_3(source);
  shader.setEnvClient(glslang::EShClientVulkan,
                      vulkan_1_3 ? glslang::EShTargetVulkan_1_3 : glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv,
                      vulkan_1_3 ? glslang::EShTargetSpv_1_6 : glslang::EShTargetSpv_1_5);
  shader.setEntryPoint("main");
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  const TBuiltInResource* limits = GetDefaultResources();
  if (!shader.parse(limits, 450, ENoProfile, false, false, messages)) {
    result.log = shader.getInfoLog();
    return result;
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    result.log = std::string(shader.getInfoLog()) + program.getInfoLog();
    return result;
  }
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.validate = false;  // spirv-val runs as its own stage
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), result.spirv, &logger, &options);
  result.log = shader.getInfoLog() + logger.getAllMessages();
  result.ok = !result.spirv.empty();
  return result;
}

std::string compiler_version() {
  const glslang::Version version = glslang::GetVersion();
  return "glslang " + std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
         std::to_string(version.patch) + version.flavor;
}

std::string validator_version() {
  // "SPIRV-Tools v2025.1 unknown hash, <build time>": the name and the release, without what follows.
  const std::string text = spvSoftwareVersionDetailsString();
  const size_t second_space = text.find(' ', text.find(' ') + 1);
  return text.substr(0, second_space);
}

uint32_t spirv_generator_word() {
  return static_cast<uint32_t>(glslang::GetKhronosToolId()) << 16 |
         static_cast<uint32_t>(glslang::GetSpirvGeneratorVersion());
}

}  // namespace kernelgen
