#include "kernelgen/validation/worker_environment.hpp"

#include <algorithm>
#include <array>

#include "kernelgen/llm/settings.hpp"

namespace kernelgen {

namespace {

constexpr std::array<std::string_view, 6> kNames{"PATH", "HOME", "TMPDIR", "LD_LIBRARY_PATH", "LANG", "TZ"};

// clang-format off: one group a line
constexpr std::array<std::string_view, 23> kPrefixes{
    // which device, and how to validate on it
    "KERNELGEN_", "CTEST_RESOURCE_GROUP_",
    // the Vulkan loader (layers, drivers) and where it finds them
    "VK_", "XDG_",
    // the drivers' own settings
    "MESA_", "LP_", "GALLIUM_", "GALLIVM_", "LIBGL_", "RADV_", "ACO_", "AMD_", "ANV_", "INTEL_", "__GL_", "__NV_", "NVIDIA_",
    // the sanitizers' options in instrumented builds, and the locale
    "ASAN_", "UBSAN_", "LSAN_", "TSAN_", "MSAN_", "LC_"};
// clang-format on

// Named like something that opens a door: refused whatever prefix it has.
bool looks_secret(std::string_view name) {
  if (llm::is_secret_setting(name)) return true;
  for (std::string_view word : {"SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"})
    if (name.find(word) != std::string_view::npos) return true;
  for (std::string_view ending : {"_TOKEN", "_KEY"})
    if (name.ends_with(ending)) return true;
  return false;
}

}  // namespace

bool worker_gets_variable(std::string_view name) {
  if (looks_secret(name)) return false;
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

std::vector<char*> worker_environment(char** environment) {
  std::vector<char*> kept;
  for (char** entry = environment; entry && *entry; ++entry) {
    const std::string_view variable = *entry;
    if (worker_gets_variable(variable.substr(0, variable.find('=')))) kept.push_back(*entry);
  }
  kept.push_back(nullptr);
  return kept;
}

}  // namespace kernelgen
