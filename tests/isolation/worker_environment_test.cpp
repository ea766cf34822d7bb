// The validation worker's environment: an allowlist of what running Vulkan kernels needs, so that no secret
// of the generator's environment (a provider key, a cloud credential, a token) reaches untrusted kernels'
// process.
#include "kernelgen/validation/worker_environment.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kernelgen {
namespace {

TEST(WorkerEnvironment, KeepsWhatVulkanTheDeviceChoiceAndTheSanitizersRead) {
  for (const char* name :
       {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_LOADER_DEBUG", "VK_INSTANCE_LAYERS", "KERNELGEN_DEVICE",
        "KERNELGEN_VK_VALIDATION", "CTEST_RESOURCE_GROUP_0_GPU", "PATH", "HOME", "TMPDIR", "LD_LIBRARY_PATH",
        "ASAN_OPTIONS", "UBSAN_OPTIONS", "MESA_SHADER_CACHE_DISABLE", "LP_NUM_THREADS", "XDG_RUNTIME_DIR",
        "XDG_CONFIG_DIRS", "__GL_SHADER_DISK_CACHE"})
    EXPECT_TRUE(worker_gets_variable(name)) << name;
}

TEST(WorkerEnvironment, DropsSecretsAndEverythingNotAllowed) {
  for (const char* name :
       {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KERNELGEN_TEST_SERVICE_API_KEY", "MY_TOKEN", "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "KERNELGEN_PASSWORD", "VK_SECRET",
        "OPENAI_BASE_URL", "DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK", "LD_PRELOAD", "DATABASE_URL",
        "PWD"})
    EXPECT_FALSE(worker_gets_variable(name)) << name;
}

TEST(WorkerEnvironment, ListsTheKeptEntriesNullTerminated) {
  std::vector<std::string> entries{"VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
                                   "MY_TOKEN=tok-SECRET",
                                   "AWS_SECRET_ACCESS_KEY=aws-SECRET",
                                   "PATH=/usr/bin",
                                   "OPENAI_API_KEY=sk-SECRET",
                                   "KERNELGEN_SEED=7"};
  std::vector<char*> environment;
  for (std::string& entry : entries) environment.push_back(entry.data());
  environment.push_back(nullptr);

  const std::vector<char*> kept = worker_environment(environment.data());
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept.back(), nullptr);
  EXPECT_EQ(std::vector<std::string>(kept.begin(), kept.end() - 1),
            (std::vector<std::string>{"VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
                                      "PATH=/usr/bin", "KERNELGEN_SEED=7"}));
  EXPECT_EQ(kept[0], entries[0].data()) << "the caller's own entries, not copies";
}

}  // namespace
}  // namespace kernelgen
