#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgen/kernel.hpp"
#include "kernelgen/validation/verdict.hpp"

namespace kernelgen {

// generated/<op>/manifest.json: the accepted kernel's provenance.
struct Manifest {
  std::string op;
  std::string spec_hash;
  std::string author;  // "hand-written" or the model, e.g. "openai/gpt-4o"
  std::string source_hash;
  std::string spirv_hash;
  int contract = 1;          // the kernel contract it was generated under
  std::string dispatch;      // the grid of kernel.comp's dispatch line, "x y z", expressions over the dims
  std::vector<std::string> dims;  // the op's dim names, in push-constant order
  std::array<uint32_t, 3> local_size{};
  // What compiled kernel.spv, e.g. "glslang 12.0.0"; empty in manifests written before it was recorded.
  std::string compiler;
  nlohmann::json validation;  // status, seed, device, per-case errors
  nlohmann::json timing;      // null or the Timing of the accepted kernel
  nlohmann::json search;      // candidates, usage and cost of the search that produced it
  std::string generated_at;   // UTC, ISO 8601
  std::string kernelgen_version;
};

nlohmann::json to_json(const Manifest& manifest);
// Throws std::invalid_argument naming the missing or malformed field.
Manifest parse_manifest(const nlohmann::json& json);

// A kernel as checked in under generated/<op>/.
struct GeneratedKernel {
  Manifest manifest;
  std::string source;
  std::vector<uint32_t> spirv;
};

// What the build finds in generated/<op>/.
struct StoreCheck {
  enum class State { missing, corrupt, stale, current } state = State::missing;
  std::string problem;  // for anything but current: what is wrong, in one line
  std::string warning;  // for a current kernel: what the build must still say about it, or empty
  std::optional<GeneratedKernel> kernel;
};

// Source and binary agree: kernel.comp, compiled as every candidate is, must give exactly kernel.spv, or the
// kernel is corrupt. Where kernel.spv comes from another glslang (the manifest records another version or, in
// a manifest from before that was recorded, the SPIR-V header names another generator), nothing here can show
// that it is kernel.comp's: by default that kernel is corrupt too, with a message that says so; with
// `recompile` (KERNELGEN_ALLOW_OTHER_GLSLANG=1) it is current, with kernel.comp as this glslang compiles it in
// place of kernel.spv, and a warning.
enum class OtherCompiler { corrupt, recompile };

// `dims`: the op's dim names, which kernel.comp's dispatch line may use.
StoreCheck check_generated(const std::filesystem::path& directory, const std::string& spec_hash,
                           std::span<const std::string> dims,
                           OtherCompiler other_compiler = OtherCompiler::corrupt);

// A kept kernel whose kernel.spv another glslang compiled, taken as this glslang compiles kernel.comp
// (OtherCompiler::recompile): writes that SPIR-V as kernel.spv and records this glslang and the SPIR-V's hash
// in manifest.json as it lies, its other fields untouched, so that the byte-for-byte rule holds again for the
// same kernel. Nothing where kernel.spv is already this glslang's. Returns whether it wrote.
bool check_in_recompiled(const std::filesystem::path& directory, GeneratedKernel& kernel);

// Replaces generated/<op>/ as a whole: the files are written to a sibling directory and swapped in with one
// rename, so a crash leaves the old kernel or the new one, never a mix. The op's variants/ go along unchanged.
void write_generated(const std::filesystem::path& directory, const GeneratedKernel& kernel);

}  // namespace kernelgen
