// generated/<op>/manifest.json, tampered or truncated: parse_manifest refuses it naming the field, and
// check_generated, over relu's real kernel.comp and kernel.spv, says corrupt, stale or current, never crashes.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "kernelgen/store/hash.hpp"
#include "kernelgen/store/manifest.hpp"

namespace {

using kernelgen::fuzz::require;
using nlohmann::json;

void parse(const uint8_t* data, size_t size) {
  const json in = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (in.is_discarded()) return;
  kernelgen::Manifest manifest;
  try {
    manifest = kernelgen::parse_manifest(in);
  } catch (const std::invalid_argument&) {
    return;
  } catch (const json::exception&) {
    return;
  }
  const kernelgen::Manifest back = kernelgen::parse_manifest(kernelgen::to_json(manifest));
  require(kernelgen::to_json(back) == kernelgen::to_json(manifest), "a manifest parses back from its JSON");
}

// The catalog's relu, whose kernel the manifests are checked against, has one dim.
const std::vector<std::string> kReluDims{"batch"};

void check(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path directory = [] {
    const fs::path dir = kernelgen::fuzz::scratch_dir() / "relu";
    fs::create_directories(dir);
    for (const char* file : {"kernel.comp", "kernel.spv"})
      fs::copy_file(fs::path(KERNELGEN_FUZZ_GENERATED_DIR) / "relu" / file, dir / file,
                    fs::copy_options::overwrite_existing);
    return dir;
  }();
  kernelgen::fuzz::write(directory / "manifest.json", data, size);
  const kernelgen::StoreCheck check = kernelgen::check_generated(directory, "fuzz-spec-hash", kReluDims);
  using State = kernelgen::StoreCheck::State;
  require(check.state != State::missing, "a manifest that is there is never missing");
  if (check.state == State::corrupt) {
    require(!check.kernel && check.problem.find(directory.string()) != std::string::npos,
            "a corrupt kernel is not returned, and the problem names the file");
    return;
  }
  require(check.kernel.has_value(), "a current or stale kernel is returned");
  require(kernelgen::content_hash(check.kernel->spirv) == check.kernel->manifest.spirv_hash &&
              kernelgen::content_hash(check.kernel->source) == check.kernel->manifest.source_hash,
          "a kernel that is returned matches its manifest's hashes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  parse(data, size);
  check(data, size);
  return 0;
}
