#pragma once
// A checked-in kernel.spv replaced as by someone who knows how manifest.json's hash is made: the hash is
// updated with it, so only the check that kernel.comp compiles to kernel.spv can tell.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen::test {

// Writes `spirv` as <dir>/kernel.spv with its hash in <dir>/manifest.json and, where given, the compiler the
// manifest says made it.
inline void replace_spirv(const std::filesystem::path& dir, const std::vector<uint32_t>& spirv,
                          const std::string& compiler = "") {
  write_file_atomic(dir / "kernel.spv",
                    std::string(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4));
  nlohmann::json manifest = nlohmann::json::parse(read_file(dir / "manifest.json"));
  manifest["kernel"]["spirv_hash"] = content_hash(spirv);
  if (!compiler.empty()) manifest["kernel"]["compiler"] = compiler;
  write_file_atomic(dir / "manifest.json", manifest.dump(2) + "\n");
}

// `spirv` with its header's generator word (word 2) marked as another version of the same SPIR-V generator
// would mark it.
inline std::vector<uint32_t> marked_by_generator_version(std::vector<uint32_t> spirv, uint32_t version) {
  spirv.at(2) = (spirv.at(2) & 0xffff0000u) | version;
  return spirv;
}

}  // namespace kernelgen::test
