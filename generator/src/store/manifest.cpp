#include "kernelgen/store/manifest.hpp"

#include <fcntl.h>
#include <stdio.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <mutex>
#include <map>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/contract/kernel_source.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

// An extent written as a plain number is stored as that number (contract 1 always wrote three), any other
// as its text (`(rows + 63) / 64`, `1024 / 256`), so that the manifest reads back as kernel.comp's line.
json dispatch_json(const std::string& dispatch, std::span<const std::string> dims) {
  const GridExpression grid = GridExpression::parse(dispatch, dims);
  json extents = json::array();
  for (const DimExpression& extent : grid.extents()) {
    const std::string& text = extent.text();
    const bool plain_number = !text.empty() && text.size() <= 10 &&
                              std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const uint64_t value = plain_number ? std::stoull(text) : 0;
    if (plain_number && std::to_string(value) == text && value <= UINT32_MAX) extents.push_back(value);
    else extents.push_back(text);
  }
  return extents;
}

}  // namespace

json to_json(const Manifest& m) {
  json out = {{"op", m.op},
          {"spec_hash", m.spec_hash},
          {"author", m.author},
          {"kernel",
           {{"source", "kernel.comp"},
            {"source_hash", m.source_hash},
            {"spirv", "kernel.spv"},
            {"spirv_hash", m.spirv_hash},
            {"dispatch", dispatch_json(m.dispatch, m.dims)},
            {"local_size", m.local_size}}},
          {"validation", m.validation},
          {"timing", m.timing},
          {"search", m.search},
          {"generated_at", m.generated_at},
          {"kernelgen_version", m.kernelgen_version}};
  if (!m.compiler.empty()) out["kernel"]["compiler"] = m.compiler;
  // Contract 1 manifests keep the fields they always had.
  if (m.contract != 1) {
    out["contract"] = m.contract;
    out["kernel"]["dims"] = m.dims;
  }
  return out;
}

namespace {

const json& field(const json& object, const std::string& key, const std::string& where) {
  if (!object.is_object() || !object.contains(key))
    throw std::invalid_argument("manifest: missing field " + where + key);
  return object.at(key);
}

std::string text(const json& object, const std::string& key, const std::string& where = "") {
  const json& value = field(object, key, where);
  if (!value.is_string()) throw std::invalid_argument("manifest: field " + where + key + " must be a string");
  return value.get<std::string>();
}

// kernel.dispatch: three unsigned numbers (a constant grid) or expression strings, as "x y z".
std::string dispatch_text(const json& object, const std::string& where) {
  const json& value = field(object, "dispatch", where);
  if (!value.is_array() || value.size() != 3)
    throw std::invalid_argument("manifest: field " + where + "dispatch must be an array of 3 extents");
  std::string text;
  for (const json& extent : value) {
    if (!text.empty()) text += " ";
    if (extent.is_number_unsigned() && extent.get<uint64_t>() <= UINT32_MAX) text += std::to_string(extent.get<uint64_t>());
    else if (extent.is_string()) text += extent.get<std::string>();
    else throw std::invalid_argument("manifest: field " + where + "dispatch must hold unsigned 32-bit integers or expressions");
  }
  return text;
}

std::array<uint32_t, 3> triple(const json& object, const std::string& key, const std::string& where) {
  const json& value = field(object, key, where);
  if (!value.is_array() || value.size() != 3)
    throw std::invalid_argument("manifest: field " + where + key + " must be an array of 3 integers");
  std::array<uint32_t, 3> result{};
  for (size_t i = 0; i < 3; ++i) {
    if (!value[i].is_number_unsigned() || value[i].get<uint64_t>() > UINT32_MAX)
      throw std::invalid_argument("manifest: field " + where + key + " must hold unsigned 32-bit integers");
    result[i] = value[i].get<uint32_t>();
  }
  return result;
}

}  // namespace

Manifest parse_manifest(const json& j) {
  Manifest m;
  m.op = text(j, "op");
  m.spec_hash = text(j, "spec_hash");
  m.author = text(j, "author");
  const json& kernel = field(j, "kernel", "");
  m.source_hash = text(kernel, "source_hash", "kernel.");
  m.spirv_hash = text(kernel, "spirv_hash", "kernel.");
  m.dispatch = dispatch_text(kernel, "kernel.");
  if (j.contains("contract")) {
    if (!j.at("contract").is_number_integer()) throw std::invalid_argument("manifest: field contract must be an integer");
    m.contract = j.at("contract").get<int>();
  }
  if (kernel.contains("dims")) {
    const json& dims = kernel.at("dims");
    if (!dims.is_array() || !std::all_of(dims.begin(), dims.end(), [](const json& d) { return d.is_string(); }))
      throw std::invalid_argument("manifest: field kernel.dims must be an array of dim names");
    m.dims = dims.get<std::vector<std::string>>();
    // Contract 1 kernels have static shapes; a manifest naming dims without saying contract 2 would lose them
    // when written back.
    if (m.contract == 1 && !m.dims.empty())
      throw std::invalid_argument("manifest: field kernel.dims needs \"contract\": 2 (contract 1 kernels have no dims)");
  }
  try {
    GridExpression::parse(m.dispatch, m.dims);
  } catch (const std::invalid_argument& problem) {
    throw std::invalid_argument("manifest: field kernel.dispatch `" + m.dispatch + "`: " + problem.what());
  }
  m.local_size = triple(kernel, "local_size", "kernel.");
  if (kernel.contains("compiler")) m.compiler = text(kernel, "compiler", "kernel.");
  m.validation = j.value("validation", json());
  m.timing = j.value("timing", json());
  m.search = j.value("search", json());
  m.generated_at = j.value("generated_at", "");
  m.kernelgen_version = j.value("kernelgen_version", "");
  return m;
}

namespace {

std::string triple_text(uint32_t x, uint32_t y, uint32_t z) {
  return std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z);
}

// Extents over dims agree when written alike; constant ones when they have the same value (`64` and `128/2`).
bool same_grid(const GridExpression& a, const GridExpression& b, size_t dim_count) {
  const std::vector<int64_t> unused(dim_count, 0);
  for (size_t i = 0; i < 3; ++i) {
    const DimExpression& x = a.extents()[i];
    const DimExpression& y = b.extents()[i];
    if (x.uses_dims() || y.uses_dims()) {
      if (x.text() != y.text()) return false;
    } else {
      try {
        if (x.evaluate(unused) != y.evaluate(unused)) return false;
      } catch (const std::exception&) {  // 1/0: no grid agrees with it
        return false;
      }
    }
  }
  return true;
}

// Where the manifest's dims, dispatch or local size disagree with the op, kernel.comp's dispatch line or
// kernel.spv.
std::optional<std::string> manifest_disagreement(const GeneratedKernel& kernel, const std::string& spec_hash,
                                                 std::span<const std::string> dims) {
  const Manifest& m = kernel.manifest;
  if (!std::equal(m.dims.begin(), m.dims.end(), dims.begin(), dims.end())) {
    // Under another spec the op's dims may have changed: stale, and regenerated as such.
    if (m.spec_hash != spec_hash) return std::nullopt;
    return "kernel.dims disagrees with the op's dims";
  }
  std::string error;
  const auto grid = parse_dispatch_line(kernel.source, dims, &error);
  if (!grid) return "kernel.comp: " + error;
  std::optional<GridExpression> recorded;
  try {
    recorded = GridExpression::parse(m.dispatch, dims);
  } catch (const std::invalid_argument& problem) {
    return "kernel.dispatch `" + m.dispatch + "`: " + problem.what();
  }
  if (!same_grid(*grid, *recorded, dims.size()))
    return "kernel.dispatch `" + recorded->text() + "` disagrees with kernel.comp's dispatch line `" + grid->text() + "`";
  const auto interface = reflect_spirv(kernel.spirv, &error);
  if (!interface) return "kernel.spv: " + error;
  const auto& size = interface->local_size;
  if (size != m.local_size)
    return "kernel.local_size " + triple_text(m.local_size[0], m.local_size[1], m.local_size[2]) +
           " disagrees with kernel.spv's " + triple_text(size[0], size[1], size[2]);
  return std::nullopt;
}

std::string generator_text(uint32_t word) {
  if (word >> 16 == spirv_generator_word() >> 16)
    return "glslang (SPIR-V generator version " + std::to_string(word & 0xffff) + ")";
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08x", word);
  return std::string("a compiler with SPIR-V generator word ") + hex;
}

// The compiler that wrote kernel.spv where it is not this kernelgen's glslang; nullopt where it is. The
// manifest says which glslang it was; in a manifest from before it said so, the SPIR-V header's generator word.
std::optional<std::string> other_compiler_of(const GeneratedKernel& kernel) {
  const std::string& recorded = kernel.manifest.compiler;
  if (!recorded.empty()) return recorded == compiler_version() ? std::nullopt : std::optional(recorded);
  const std::vector<uint32_t>& words = kernel.spirv;
  const bool has_header = words.size() >= 5 && words[0] == 0x07230203u;
  if (!has_header || words[2] == spirv_generator_word()) return std::nullopt;
  return generator_text(words[2]);
}

struct SourceBinaryCheck {
  std::string problem;  // empty where they agree or kernel.comp's compile is taken
  std::string warning;
};

// Source and binary agree, checked by compiling kernel.comp as every candidate is compiled. Where kernel.spv
// is another glslang's, `other` decides (see OtherCompiler); `kernel.spirv` becomes kernel.comp's compile when
// that is taken in place of kernel.spv.
// compile_glsl, remembered per source for this process: a source checked again (the fuzzer's relu, thousands
// of times) is compiled once.
Compilation compiled_once(const std::string& source) {
  static std::mutex mutex;
  static std::map<std::string, Compilation> compiled;
  const std::string key = content_hash(source);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto found = compiled.find(key); found != compiled.end()) return found->second;
  }
  Compilation result = compile_glsl(source);
  const std::lock_guard<std::mutex> lock(mutex);
  if (compiled.size() > 64) compiled.clear();
  return compiled.emplace(key, std::move(result)).first->second;
}

SourceBinaryCheck check_source_and_binary(const std::filesystem::path& directory, GeneratedKernel& kernel,
                                          OtherCompiler other) {
  const Compilation compiled = compiled_once(kernel.source);
  if (compiled.ok && compiled.spirv == kernel.spirv) return {};
  const std::string source = (directory / "kernel.comp").string();
  const std::string binary = (directory / "kernel.spv").string();
  // generated/<op>/, or generated/<op>/variants/<name>/ for a variant.
  const bool variant = directory.parent_path().filename() == "variants";
  const std::string op = (variant ? directory.parent_path().parent_path() : directory).filename().string();
  const std::string regenerate = "regenerate the kernel (target kernelgen_regenerate_" + op + ")";
  const std::string error = compiled.log.substr(0, compiled.log.find('\n'));
  const auto compiler = other_compiler_of(kernel);
  if (!compiler && !compiled.ok)
    return {source + " does not compile (" + error + "), so " + binary +
            " cannot be its SPIR-V. Restore both files from version control, or " + regenerate};
  if (!compiler) {
    const auto differs =
        std::mismatch(compiled.spirv.begin(), compiled.spirv.end(), kernel.spirv.begin(), kernel.spirv.end());
    return {binary + " is not what " + source + " compiles to (from SPIR-V word " +
            std::to_string(differs.first - compiled.spirv.begin()) +
            " on): kernel.spv was replaced, or belongs to another source. Restore both files from version "
            "control, or " + regenerate};
  }
  const std::string here = "this kernelgen's " + compiler_version() + " (SPIR-V generator version " +
                           std::to_string(spirv_generator_word() & 0xffff) + ")";
  if (other == OtherCompiler::recompile && compiled.ok) {
    kernel.spirv = compiled.spirv;
    return {"", binary + " was compiled by " + *compiler + "; this build runs " + source + " as " + here +
                    " compiles it instead (KERNELGEN_ALLOW_OTHER_GLSLANG=1), and ctest revalidates that. To check "
                    "in this glslang's SPIR-V, " + regenerate};
  }
  const std::string outcome =
      compiled.ok ? " compiles " + source + " to other SPIR-V" : " cannot compile " + source + " (" + error + ")";
  return {binary + " was compiled by " + *compiler + ", and " + here + outcome +
          ", so it cannot check that kernel.spv is kernel.comp's: " + regenerate +
          " with this glslang and commit generated/" + op +
          "/, or set KERNELGEN_ALLOW_OTHER_GLSLANG=1 (or -DKERNELGEN_ALLOW_OTHER_GLSLANG=ON) to build kernel.comp "
          "as this glslang compiles it"};
}

}  // namespace

StoreCheck check_generated(const std::filesystem::path& directory, const std::string& spec_hash,
                           std::span<const std::string> dims, OtherCompiler other_compiler) {
  StoreCheck check;
  const auto manifest_path = directory / "manifest.json";
  if (!std::filesystem::exists(manifest_path)) {
    check.state = StoreCheck::State::missing;
    check.problem = directory.string() + " holds no kernel (no manifest.json)";
    return check;
  }
  GeneratedKernel kernel;
  try {
    kernel.manifest = parse_manifest(json::parse(read_file(manifest_path)));
    kernel.source = read_file(directory / "kernel.comp");
    kernel.spirv = read_spirv(directory / "kernel.spv");
  } catch (const json::parse_error& error) {
    // nlohmann's message names a line and column but not the file.
    check.state = StoreCheck::State::corrupt;
    check.problem = manifest_path.string() + " is not valid JSON: " + error.what();
    return check;
  } catch (const std::exception& error) {
    check.state = StoreCheck::State::corrupt;
    check.problem = directory.string() + ": " + error.what();
    return check;
  }
  if (content_hash(kernel.source) != kernel.manifest.source_hash) {
    check.state = StoreCheck::State::corrupt;
    check.problem = (directory / "kernel.comp").string() + " does not match the hash in manifest.json (edited by hand?)";
    return check;
  }
  if (content_hash(kernel.spirv) != kernel.manifest.spirv_hash) {
    check.state = StoreCheck::State::corrupt;
    check.problem = (directory / "kernel.spv").string() + " does not match the hash in manifest.json (truncated or edited?)";
    return check;
  }
  SourceBinaryCheck agreement = check_source_and_binary(directory, kernel, other_compiler);
  if (!agreement.problem.empty()) {
    check.state = StoreCheck::State::corrupt;
    check.problem = std::move(agreement.problem);
    return check;
  }
  check.warning = std::move(agreement.warning);
  // The manifest's own fields are not hashed: they must agree with the files the hashes vouch for.
  if (auto mismatch = manifest_disagreement(kernel, spec_hash, dims)) {
    check.state = StoreCheck::State::corrupt;
    check.problem = (directory / "manifest.json").string() + ": " + *mismatch;
    return check;
  }
  if (kernel.manifest.spec_hash != spec_hash) {
    check.state = StoreCheck::State::stale;
    check.problem = "the op's declaration or reference changed since the kernel was generated (spec hash " +
                    kernel.manifest.spec_hash + " in the manifest, " + spec_hash + " now)";
    check.kernel = std::move(kernel);
    return check;
  }
  check.state = StoreCheck::State::current;
  check.kernel = std::move(kernel);
  return check;
}

bool check_in_recompiled(const std::filesystem::path& directory, GeneratedKernel& kernel) {
  const std::string hash = content_hash(kernel.spirv);
  if (kernel.manifest.compiler == compiler_version() && kernel.manifest.spirv_hash == hash) return false;
  const std::filesystem::path manifest_file = directory / "manifest.json";
  json text = json::parse(read_file(manifest_file));
  if (!text.contains("kernel") || !text["kernel"].is_object())
    throw std::runtime_error(manifest_file.string() +
                             " has no kernel object to record the recompiled SPIR-V in");
  // kernel.spv first: until the manifest names its hash, a crash between the two leaves a kernel that fails
  // its hash check, which a regeneration replaces.
  write_file_atomic(directory / "kernel.spv",
                    std::string(reinterpret_cast<const char*>(kernel.spirv.data()), kernel.spirv.size() * 4));
  text["kernel"]["compiler"] = compiler_version();
  text["kernel"]["spirv_hash"] = hash;
  write_file_atomic(manifest_file, text.dump(2) + "\n");
  kernel.manifest.compiler = compiler_version();
  kernel.manifest.spirv_hash = hash;
  return true;
}

void write_generated(const std::filesystem::path& directory, const GeneratedKernel& kernel) {
  namespace fs = std::filesystem;
  const fs::path parent = directory.parent_path();
  fs::create_directories(parent);
  const fs::path staging = hidden_sibling(directory, "new");
  fs::create_directories(staging);
  try {
    write_file_atomic(staging / "kernel.comp", kernel.source);
    write_file_atomic(staging / "kernel.spv",
                      std::string(reinterpret_cast<const char*>(kernel.spirv.data()), kernel.spirv.size() * 4));
    write_file_atomic(staging / "manifest.json", to_json(kernel.manifest).dump(2) + "\n");
    // The op's variants (variants/<name>/) are checked in on their own: they go into the new directory as they
    // are, copied before the swap so that a crash leaves them in the old directory or the new one.
    if (fs::exists(directory / "variants"))
      fs::copy(directory / "variants", staging / "variants", fs::copy_options::recursive);
    if (fs::exists(directory)) {
      // One atomic swap of the two directories, then the old one (now at `staging`) goes.
      if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, directory.c_str(), RENAME_EXCHANGE) != 0)
        throw std::runtime_error("cannot replace " + directory.string() + ": " + std::strerror(errno));
      fs::remove_all(staging);
    } else {
      fs::rename(staging, directory);
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

}  // namespace kernelgen
