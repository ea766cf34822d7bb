#pragma once
#include <filesystem>
#include <optional>

namespace kernelgen {

// The candidate log of the project that `start` (an absolute directory) lies in, for the commands that read
// the log when neither --log-dir nor $KERNELGEN_CACHE_DIR names one. From `start` upwards, the first
// directory that is a build tree of kernelgen, or holds one as build/ (where `cmake -B build` and the preset
// `default` put it), gives its log: the KERNELGEN_CACHE_DIR of its CMakeCache.txt, else
// <build>/kernelgen/candidates, as kernelgen_add_op does. A build tree is kernelgen's when its CMakeCache.txt
// has a KERNELGEN_CACHE_DIR entry, as every project that takes kernelgen has, whether or not a search has
// written its log yet. nullopt when no directory up to the root is one.
std::optional<std::filesystem::path> project_log_dir(const std::filesystem::path& start);

}  // namespace kernelgen
