#include "kernelgen/store/candidate_log_dir.hpp"

#include <fstream>
#include <string>

namespace kernelgen {

namespace {

// The log of the build tree `build` when it is kernelgen's (its cache has a KERNELGEN_CACHE_DIR entry).
std::optional<std::filesystem::path> log_of_build_tree(const std::filesystem::path& build) {
  std::ifstream cache(build / "CMakeCache.txt");
  const std::string entry = "KERNELGEN_CACHE_DIR:";
  for (std::string line; std::getline(cache, line);) {
    if (line.rfind(entry, 0) != 0) continue;
    const size_t equals = line.find('=');
    const std::string value = equals == std::string::npos ? "" : line.substr(equals + 1);
    // CMake stores a PATH entry absolute; a relative one is taken as relative to the build tree.
    return value.empty() ? build / "kernelgen" / "candidates" : build / value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::filesystem::path> project_log_dir(const std::filesystem::path& start) {
  for (std::filesystem::path dir = start;; dir = dir.parent_path()) {
    for (const std::filesystem::path& build : {dir, dir / "build"})
      if (auto log = log_of_build_tree(build)) return log;
    if (dir == dir.parent_path()) return std::nullopt;  // the root
  }
}

}  // namespace kernelgen
