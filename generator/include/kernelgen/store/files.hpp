#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace kernelgen {

// Reads a whole file; throws std::runtime_error naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);
std::vector<uint32_t> read_spirv(const std::filesystem::path& path);

// A hidden, unique name beside `path` for work in progress: <dir>/.<name>.<tag><pid>_<random>.
std::filesystem::path hidden_sibling(const std::filesystem::path& path, const std::string& tag);

// Removes the work in progress that hidden_sibling() names left in `directory` by processes that no longer run
// (killed mid-write); that of a live process stays. Returns how many entries it removed.
int remove_abandoned_siblings(const std::filesystem::path& directory);

// Writes through a temporary file in the same directory and renames it over the target, so a reader (or a
// crash) sees the old content or the new, never half of it. Creates the missing directories of `path`; a bare
// file name is written in the current directory.
void write_file_atomic(const std::filesystem::path& path, const std::string& bytes);

// write_file_atomic(), unless the file holds these bytes already: then it is left alone, timestamp and all, so
// that a build tool that checks outputs after a step (Ninja's restat) rebuilds nothing that depends on it.
// Returns whether it wrote.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& bytes);

}  // namespace kernelgen
