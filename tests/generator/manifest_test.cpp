// manifest: generated/<op>/manifest.json round trips, and what the build finds in generated/<op>/: missing,
// corrupt, stale or current; write_generated replaces the directory as a whole; check_in_recompiled checks in
// this glslang's SPIR-V of a kernel another glslang compiled.
#include "kernelgen/store/manifest.hpp"
#include "kernelgen/compile/compile.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"
#include "scratch_dir.hpp"
#include "tampered_spirv.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using test::marked_by_generator_version;
using test::replace_spirv;

GeneratedKernel sample_kernel(const std::string& spec_hash = "0123456789abcdef") {
  GeneratedKernel kernel;
  kernel.source =
      "#version 450\n// kernelgen: dispatch 8 2 3\nlayout(local_size_x = 256) in;\nvoid main() {}\n";
  kernel.spirv = compile_glsl(kernel.source).spirv;
  Manifest& m = kernel.manifest;
  m.op = "relu";
  m.spec_hash = spec_hash;
  m.author = "hand-written";
  m.source_hash = content_hash(kernel.source);
  m.spirv_hash = content_hash(kernel.spirv);
  m.dispatch = "8 2 3";
  m.local_size = {256, 1, 1};
  m.validation = {{"status", "PASSED"}, {"base_seed", 7}};
  m.timing = {{"median_ns", 1234.5}};
  m.search = {{"candidates", 1}};
  m.generated_at = "2025-01-02T03:04:05Z";
  m.kernelgen_version = "0.1.0";
  return kernel;
}

// A manifest as generated/<op>/manifest.json holds it: written, then read back from the text.
json file_json(const Manifest& m) {
  return json::parse(to_json(m).dump());
}

TEST(Manifest, RoundTripsThroughJson) {
  const Manifest m = sample_kernel().manifest;
  const Manifest back = parse_manifest(file_json(m));
  EXPECT_EQ(back.op, m.op);
  EXPECT_EQ(back.spec_hash, m.spec_hash);
  EXPECT_EQ(back.author, m.author);
  EXPECT_EQ(back.source_hash, m.source_hash);
  EXPECT_EQ(back.spirv_hash, m.spirv_hash);
  EXPECT_EQ(back.dispatch, "8 2 3");
  EXPECT_EQ(back.contract, 1);
  EXPECT_TRUE(back.dims.empty());
  EXPECT_EQ(back.local_size, m.local_size);
  EXPECT_EQ(back.validation, m.validation);
  EXPECT_EQ(back.timing, m.timing);
  EXPECT_EQ(back.search, m.search);
  EXPECT_EQ(back.generated_at, m.generated_at);
  EXPECT_EQ(back.kernelgen_version, m.kernelgen_version);
}

// A kernel of contract 2: its grid is an expression over the op's dims, which arrive as push constants.
GeneratedKernel symbolic_kernel(const std::string& spec_hash = "0123456789abcdef") {
  GeneratedKernel kernel = sample_kernel(spec_hash);
  kernel.source =
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(push_constant) uniform Dims { uint rows; uint cols; } dims;\n"
      "// kernelgen: dispatch (rows + 63) / 64 cols 1\nvoid main() {}\n";
  const Compilation compiled = compile_glsl(kernel.source);
  EXPECT_TRUE(compiled.ok) << compiled.log;
  kernel.spirv = compiled.spirv;
  Manifest& m = kernel.manifest;
  m.op = "rowwise";
  m.source_hash = content_hash(kernel.source);
  m.spirv_hash = content_hash(kernel.spirv);
  m.contract = 2;
  m.dispatch = "(rows + 63) / 64 cols 1";
  m.dims = {"rows", "cols"};
  m.local_size = {64, 1, 1};
  return kernel;
}

const std::vector<std::string> kManifestDimNames{"rows", "cols"};

TEST(Manifest, ASymbolicManifestRoundTripsWithItsDispatchAsExpressionsContract2AndDims) {
  const Manifest m = symbolic_kernel().manifest;
  const json j = file_json(m);
  EXPECT_EQ(j.at("contract"), 2);
  EXPECT_EQ(j.at("kernel").at("dispatch"), json::array({"(rows + 63) / 64", "cols", 1}))
      << "an extent over dims as a string, a constant one as a number";
  EXPECT_EQ(j.at("kernel").at("dims"), json::array({"rows", "cols"}));
  const Manifest back = parse_manifest(j);
  EXPECT_EQ(back.contract, 2);
  EXPECT_EQ(back.dispatch, "(rows + 63) / 64 cols 1");
  EXPECT_EQ(back.dims, m.dims);
  EXPECT_EQ(back.local_size, m.local_size);
  EXPECT_EQ(file_json(back), j);
}

TEST(Manifest, AStaticManifestKeepsTheContract1JsonForm) {
  const json j = file_json(sample_kernel().manifest);
  EXPECT_FALSE(j.contains("contract"));
  EXPECT_FALSE(j.at("kernel").contains("dims"));
  const json& dispatch = j.at("kernel").at("dispatch");
  EXPECT_EQ(dispatch, json::array({8, 2, 3}));
  for (const json& extent : dispatch) EXPECT_TRUE(extent.is_number_unsigned()) << extent;
}

// Without the text in between: to_json's numbers must be unsigned as parse_manifest reads them.
TEST(Manifest, RoundTripsInMemoryWithoutATextInBetween) {
  for (const Manifest& m : {sample_kernel().manifest, symbolic_kernel().manifest}) {
    const Manifest back = parse_manifest(to_json(m));
    EXPECT_EQ(back.dispatch, m.dispatch);
    EXPECT_EQ(back.dims, m.dims);
  }
}

TEST(Manifest, AContract1ManifestCheckedInBeforeContract2StillParses) {
  const fs::path example = fs::path(KERNELGEN_TEST_SOURCE_DIR) / "examples/consumer/generated/scale_add";
  const Manifest m = parse_manifest(json::parse(read_file(example / "manifest.json")));
  EXPECT_EQ(m.contract, 1);
  EXPECT_EQ(m.dispatch, "4 1 1");
  EXPECT_TRUE(m.dims.empty());
  EXPECT_EQ(check_generated(example, m.spec_hash, {}).state, StoreCheck::State::current);
}

TEST(Manifest, ParseRejectsDimsThatAreNotNames) {
  json j = file_json(symbolic_kernel().manifest);
  j["kernel"]["dims"] = {"rows", 3};
  try {
    parse_manifest(j);
    FAIL() << "parsed a numeric dim name";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("kernel.dims"));
  }
  j = file_json(symbolic_kernel().manifest);
  j["contract"] = "2";
  EXPECT_THROW(parse_manifest(j), std::invalid_argument);
}

// Found by fuzz_manifest: dims without "contract": 2 parsed, then to_json (contract 1 form) dropped them and the
// manifest no longer read back.
TEST(Manifest, ParseRejectsDimsWithoutContract2) {
  json j = file_json(symbolic_kernel().manifest);
  j.erase("contract");
  try {
    parse_manifest(j);
    FAIL() << "parsed dims in a contract 1 manifest";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("kernel.dims needs \"contract\": 2"));
  }
}

TEST(Manifest, RecordsTheCompilerOfKernelSpvWhereItIsKnown) {
  Manifest m = sample_kernel().manifest;
  EXPECT_FALSE(file_json(m).at("kernel").contains("compiler"))
      << "a manifest from before it was recorded keeps its form";
  EXPECT_EQ(parse_manifest(file_json(m)).compiler, "");
  m.compiler = "glslang 12.0.0";
  EXPECT_EQ(file_json(m).at("kernel").at("compiler"), "glslang 12.0.0");
  EXPECT_EQ(parse_manifest(file_json(m)).compiler, "glslang 12.0.0");
  json j = file_json(m);
  j["kernel"]["compiler"] = 12;
  try {
    parse_manifest(j);
    FAIL() << "parsed a numeric compiler";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("kernel.compiler must be a string"));
  }
}

TEST(Manifest, EveryCheckedInKernelIsCurrentAndRecompilesToExactlyItsSpirv) {
  const fs::path root = KERNELGEN_TEST_SOURCE_DIR;
  int kernels = 0;
  for (const fs::path& store : {root / "generated", root / "examples/consumer/generated"}) {
    for (const auto& entry : fs::directory_iterator(store)) {
      const fs::path dir = entry.path();
      const Manifest m = parse_manifest(json::parse(read_file(dir / "manifest.json")));
      EXPECT_EQ(compile_glsl(read_file(dir / "kernel.comp")).spirv, read_spirv(dir / "kernel.spv")) << dir;
      const StoreCheck check = check_generated(dir, m.spec_hash, m.dims);
      EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
      EXPECT_EQ(check.warning, "") << dir;
      ++kernels;
    }
  }
  EXPECT_GE(kernels, 7) << "relu, add and matmul, and the consumer example's four";
}

TEST(Manifest, NamesTheFilesItDescribes) {
  const json j = file_json(sample_kernel().manifest);
  EXPECT_EQ(j.at("kernel").at("source"), "kernel.comp");
  EXPECT_EQ(j.at("kernel").at("spirv"), "kernel.spv");
}

TEST(Manifest, ParseNamesAMissingField) {
  json j = file_json(sample_kernel().manifest);
  j.at("kernel").erase("dispatch");
  try {
    parse_manifest(j);
    FAIL() << "parsed a manifest without kernel.dispatch";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("missing field kernel.dispatch"));
  }
  j = file_json(sample_kernel().manifest);
  j.erase("spec_hash");
  EXPECT_THROW(parse_manifest(j), std::invalid_argument);
}

TEST(Manifest, ParseNamesAMalformedField) {
  json j = file_json(sample_kernel().manifest);
  j["kernel"]["local_size"] = {256, 1};
  EXPECT_THROW(parse_manifest(j), std::invalid_argument);
  j = file_json(sample_kernel().manifest);
  j["kernel"]["dispatch"] = {8, -1, 1};
  try {
    parse_manifest(j);
    FAIL() << "parsed a negative dispatch extent";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("kernel.dispatch"));
  }
  j = file_json(sample_kernel().manifest);
  j["author"] = 3;
  EXPECT_THROW(parse_manifest(j), std::invalid_argument);
}

// A generated/<op>/ in a scratch directory.
class GeneratedDir : public ::testing::Test {
 protected:
  test::ScratchDir scratch;
  const fs::path dir = scratch.path() / "generated" / "relu";
  const GeneratedKernel kernel = sample_kernel();
  const std::string hash = kernel.manifest.spec_hash;
};

TEST_F(GeneratedDir, WritesTheThreeFiles) {
  write_generated(dir, kernel);
  EXPECT_EQ(read_file(dir / "kernel.comp"), kernel.source);
  EXPECT_EQ(read_spirv(dir / "kernel.spv"), kernel.spirv);
  EXPECT_EQ(parse_manifest(json::parse(read_file(dir / "manifest.json"))).spec_hash, hash);
}

// An op's variants are checked in under generated/<op>/variants/ on their own: rewriting the op's kernel keeps
// them as they are, and leaves nothing else of the old directory.
TEST_F(GeneratedDir, RewritingTheKernelKeepsTheVariantsAndDropsEverythingElse) {
  write_generated(dir, kernel);
  write_generated(dir / "variants" / "coopmat", kernel);
  write_file_atomic(dir / "stray.txt", "left behind");
  GeneratedKernel changed = kernel;
  changed.source += "// changed\n";
  write_generated(dir, changed);
  EXPECT_EQ(read_file(dir / "kernel.comp"), changed.source);
  EXPECT_EQ(read_file(dir / "variants" / "coopmat" / "kernel.comp"), kernel.source);
  EXPECT_EQ(check_generated(dir / "variants" / "coopmat", hash, {}).state, StoreCheck::State::current);
  EXPECT_FALSE(fs::exists(dir / "stray.txt"));
}

TEST_F(GeneratedDir, AFreshlyWrittenKernelIsCurrent) {
  write_generated(dir, kernel);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
  ASSERT_TRUE(check.kernel);
  EXPECT_EQ(check.kernel->source, kernel.source);
  EXPECT_EQ(check.kernel->spirv, kernel.spirv);
  EXPECT_EQ(check.kernel->manifest.dispatch, "8 2 3");
}

TEST_F(GeneratedDir, AManifestWhoseDispatchDisagreesWithTheSourceIsCorrupt) {
  GeneratedKernel tampered = kernel;
  tampered.manifest.dispatch = "4 2 3";
  write_generated(dir, tampered);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.dispatch `4 2 3`"));
  EXPECT_THAT(check.problem, HasSubstr("`8 2 3`"));
}

TEST_F(GeneratedDir, AManifestWhoseLocalSizeDisagreesWithTheSpirvIsCorrupt) {
  GeneratedKernel tampered = kernel;
  tampered.manifest.local_size = {128, 1, 1};
  write_generated(dir, tampered);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.local_size 128 1 1"));
}

TEST_F(GeneratedDir, ASpirvSwappedForAnotherKernelsWithItsHashUpdatedIsCorruptNamingBothFiles) {
  write_generated(dir, kernel);
  // Same interface, dispatch line and workgroup size: only the source shows it is not this kernel.
  const Compilation other = compile_glsl(
      "#version 450\n// kernelgen: dispatch 8 2 3\nlayout(local_size_x = 256) in;\nshared float s;\n"
      "void main() { s = 1.0; }\n");
  ASSERT_TRUE(other.ok) << other.log;
  replace_spirv(dir, other.spirv);
  for (const OtherCompiler policy : {OtherCompiler::corrupt, OtherCompiler::recompile}) {
    const StoreCheck check = check_generated(dir, hash, {}, policy);
    EXPECT_EQ(check.state, StoreCheck::State::corrupt);
    EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.spv").string() + " is not what " +
                                         (dir / "kernel.comp").string() + " compiles to"));
    EXPECT_THAT(check.problem, HasSubstr("kernelgen_regenerate_relu"));
    EXPECT_FALSE(check.kernel);
  }
}

TEST_F(GeneratedDir, ACatalogKernelSpvSwappedForAnothersWithItsHashUpdatedIsCorrupt) {
  const fs::path catalog = fs::path(KERNELGEN_TEST_SOURCE_DIR) / "generated";
  fs::create_directories(dir);
  for (const char* file : {"manifest.json", "kernel.comp", "kernel.spv"})
    fs::copy_file(catalog / "relu" / file, dir / file);
  const Manifest m = parse_manifest(json::parse(read_file(dir / "manifest.json")));
  ASSERT_EQ(check_generated(dir, m.spec_hash, m.dims).state, StoreCheck::State::current);
  replace_spirv(dir, read_spirv(catalog / "add" / "kernel.spv"));
  const StoreCheck check = check_generated(dir, m.spec_hash, m.dims);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.spv").string() + " is not what " +
                                       (dir / "kernel.comp").string() + " compiles to"));
}

TEST_F(GeneratedDir, ASourceThatDoesNotCompileIsCorrupt) {
  GeneratedKernel tampered = kernel;
  tampered.source =
      "#version 450\n// kernelgen: dispatch 8 2 3\nlayout(local_size_x = 256) in;\nvoid main() { x; }\n";
  tampered.manifest.source_hash = content_hash(tampered.source);
  write_generated(dir, tampered);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.comp").string() + " does not compile ("));
  EXPECT_THAT(check.problem, HasSubstr("'x'"));
}

// A manifest from before the compiler was recorded: the header's generator word is all that tells.
TEST_F(GeneratedDir, ASpirvFromAnotherGlslangIsCorruptSayingSoAndWhatToDo) {
  write_generated(dir, kernel);
  replace_spirv(dir, marked_by_generator_version(kernel.spirv, 10));
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.spv").string() +
                                       " was compiled by glslang (SPIR-V generator version 10), and this "
                                       "kernelgen's " + compiler_version() + " (SPIR-V generator version " +
                                       std::to_string(spirv_generator_word() & 0xffff) + ") compiles " +
                                       (dir / "kernel.comp").string() + " to other SPIR-V"));
  EXPECT_THAT(check.problem, HasSubstr("kernelgen_regenerate_relu"));
  EXPECT_THAT(check.problem, HasSubstr("KERNELGEN_ALLOW_OTHER_GLSLANG=1"));
  EXPECT_THAT(check.problem, Not(HasSubstr("replaced")));
}

TEST_F(GeneratedDir, AManifestNamingAnotherGlslangIsCorruptNamingBothVersions) {
  write_generated(dir, kernel);
  std::vector<uint32_t> spirv = kernel.spirv;
  spirv[3] += 1;  // another ID bound, with this glslang's generator word
  replace_spirv(dir, spirv, "glslang 11.9.0");
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.spv was compiled by glslang 11.9.0, and this kernelgen's " +
                                       compiler_version()));
}

TEST_F(GeneratedDir, AManifestNamingThisGlslangLeavesAnotherGeneratorWordNoExcuse) {
  write_generated(dir, kernel);
  replace_spirv(dir, marked_by_generator_version(kernel.spirv, 10), compiler_version());
  const StoreCheck check = check_generated(dir, hash, {}, OtherCompiler::recompile);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.spv is not what"));
}

TEST_F(GeneratedDir, AnotherGlslangThatCompilesTheSameSpirvLeavesTheKernelCurrent) {
  write_generated(dir, kernel);
  replace_spirv(dir, kernel.spirv, "glslang 11.9.0");
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
  EXPECT_EQ(check.warning, "");
}

TEST_F(GeneratedDir, AllowingOtherGlslangsTakesTheSourcesCompileInPlaceOfTheirSpirvAndWarns) {
  write_generated(dir, kernel);
  const std::vector<uint32_t> theirs = marked_by_generator_version(kernel.spirv, 10);
  replace_spirv(dir, theirs);
  const StoreCheck check = check_generated(dir, hash, {}, OtherCompiler::recompile);
  EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
  ASSERT_TRUE(check.kernel);
  EXPECT_EQ(check.kernel->spirv, kernel.spirv) << "kernel.comp as this glslang compiles it";
  EXPECT_EQ(read_spirv(dir / "kernel.spv"), theirs) << "the checked-in file is left alone";
  EXPECT_THAT(check.warning, HasSubstr((dir / "kernel.spv").string() +
                                       " was compiled by glslang (SPIR-V generator version 10)"));
  EXPECT_THAT(check.warning, HasSubstr("KERNELGEN_ALLOW_OTHER_GLSLANG=1"));
}

// generated/<op>/ as an older toolchain left it: kernel.spv from another glslang, manifest.json naming that
// glslang (or, from before it was recorded, none) and holding a field this kernelgen does not know. Returns
// the kernel as the build takes it under KERNELGEN_ALLOW_OTHER_GLSLANG=1.
GeneratedKernel kept_from_another_glslang(const fs::path& dir, const GeneratedKernel& kernel,
                                          const std::string& their_compiler) {
  write_generated(dir, kernel);
  replace_spirv(dir, marked_by_generator_version(kernel.spirv, 10), their_compiler);
  json manifest = json::parse(read_file(dir / "manifest.json"));
  manifest["reviewed_by"] = "someone";
  write_file_atomic(dir / "manifest.json", manifest.dump(2) + "\n");
  StoreCheck check = check_generated(dir, kernel.manifest.spec_hash, {}, OtherCompiler::recompile);
  EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
  EXPECT_THAT(check.warning, HasSubstr("KERNELGEN_ALLOW_OTHER_GLSLANG=1"));
  if (!check.kernel) throw std::logic_error("no kernel to check in: " + check.problem);
  return std::move(*check.kernel);
}

TEST_F(GeneratedDir, CheckingInARecompiledKernelWritesThisGlslangsSpirvAndRecordsItLeavingTheRestAlone) {
  for (const std::string& their_compiler : {std::string("glslang 11.9.0"), std::string()}) {
    GeneratedKernel kept = kept_from_another_glslang(dir, kernel, their_compiler);
    const json before = json::parse(read_file(dir / "manifest.json"));
    ASSERT_TRUE(check_in_recompiled(dir, kept)) << their_compiler;

    EXPECT_EQ(read_spirv(dir / "kernel.spv"), kernel.spirv) << "kernel.comp as this glslang compiles it";
    json expected = before;
    expected["kernel"]["compiler"] = compiler_version();
    expected["kernel"]["spirv_hash"] = content_hash(kernel.spirv);
    EXPECT_EQ(json::parse(read_file(dir / "manifest.json")), expected)
        << "generated_at, the validation, an unknown field: all as they were";
    EXPECT_EQ(kept.manifest.compiler, compiler_version());
    EXPECT_EQ(kept.manifest.spirv_hash, content_hash(kernel.spirv));
    const StoreCheck check = check_generated(dir, hash, {});
    EXPECT_EQ(check.state, StoreCheck::State::current)
        << "without KERNELGEN_ALLOW_OTHER_GLSLANG: " << check.problem;
    EXPECT_EQ(check.warning, "");
  }
}

TEST_F(GeneratedDir, CheckingInARecompiledKernelTwiceWritesOnce) {
  GeneratedKernel kept = kept_from_another_glslang(dir, kernel, "glslang 11.9.0");
  ASSERT_TRUE(check_in_recompiled(dir, kept));
  // Rewritten in another form: a second write would give it back its two-space indentation.
  const std::string compact = json::parse(read_file(dir / "manifest.json")).dump();
  write_file_atomic(dir / "manifest.json", compact);
  EXPECT_FALSE(check_in_recompiled(dir, kept));
  EXPECT_EQ(read_file(dir / "manifest.json"), compact);
  StoreCheck next_build = check_generated(dir, hash, {});
  ASSERT_TRUE(next_build.kernel) << next_build.problem;
  EXPECT_FALSE(check_in_recompiled(dir, *next_build.kernel))
      << "nor for the kernel as the next build reads it";
  EXPECT_EQ(read_file(dir / "manifest.json"), compact);
}

TEST_F(GeneratedDir, AKernelThisGlslangCompiledIsNotCheckedInAgain) {
  GeneratedKernel current = kernel;
  current.manifest.compiler = compiler_version();
  write_generated(dir, current);
  const std::string manifest = read_file(dir / "manifest.json");
  StoreCheck check = check_generated(dir, hash, {});
  ASSERT_TRUE(check.kernel) << check.problem;
  EXPECT_FALSE(check_in_recompiled(dir, *check.kernel));
  EXPECT_EQ(read_file(dir / "manifest.json"), manifest);
  EXPECT_EQ(read_spirv(dir / "kernel.spv"), kernel.spirv);
}

TEST_F(GeneratedDir, CheckingInOverAManifestWithoutAKernelObjectThrowsAndWritesNothing) {
  GeneratedKernel kept = kept_from_another_glslang(dir, kernel, "glslang 11.9.0");
  const std::vector<uint32_t> theirs = read_spirv(dir / "kernel.spv");
  json manifest = json::parse(read_file(dir / "manifest.json"));
  manifest.erase("kernel");
  write_file_atomic(dir / "manifest.json", manifest.dump());
  try {
    check_in_recompiled(dir, kept);
    FAIL() << "checked in over a manifest without kernel";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr((dir / "manifest.json").string() + " has no kernel object"));
  }
  EXPECT_EQ(read_spirv(dir / "kernel.spv"), theirs) << "kernel.spv is left as it was";
  EXPECT_EQ(read_file(dir / "manifest.json"), manifest.dump());
}

TEST_F(GeneratedDir, ADirectoryWithoutAManifestIsMissing) {
  EXPECT_EQ(check_generated(dir, hash, {}).state, StoreCheck::State::missing);
  fs::create_directories(dir);
  write_file_atomic(dir / "kernel.comp", kernel.source);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::missing);
  EXPECT_THAT(check.problem, HasSubstr("no manifest.json"));
  EXPECT_FALSE(check.kernel);
}

TEST_F(GeneratedDir, ATruncatedSpirvIsCorrupt) {
  write_generated(dir, kernel);
  fs::resize_file(dir / "kernel.spv", (kernel.spirv.size() - 1) * 4);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.spv does not match the hash"));
}

TEST_F(GeneratedDir, ASpirvCutMidWordIsCorrupt) {
  write_generated(dir, kernel);
  fs::resize_file(dir / "kernel.spv", kernel.spirv.size() * 4 - 2);
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.spv"));
  EXPECT_THAT(check.problem, HasSubstr("not a whole number of 32-bit SPIR-V words"));
}

TEST_F(GeneratedDir, AHandEditedSourceIsCorrupt) {
  write_generated(dir, kernel);
  write_file_atomic(dir / "kernel.comp", kernel.source + "// tweaked\n");
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.comp does not match the hash"));
}

TEST_F(GeneratedDir, AGarbageManifestIsCorruptAndNamed) {
  write_generated(dir, kernel);
  write_file_atomic(dir / "manifest.json", "{\"op\": \"relu\", garbage");
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("manifest.json is not valid JSON"));
}

TEST_F(GeneratedDir, AManifestMissingAFieldIsCorrupt) {
  write_generated(dir, kernel);
  json j = to_json(kernel.manifest);
  j.erase("op");
  write_file_atomic(dir / "manifest.json", j.dump());
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("missing field op"));
}

TEST_F(GeneratedDir, AMissingSourceIsCorruptAndNamed) {
  write_generated(dir, kernel);
  fs::remove(dir / "kernel.comp");
  const StoreCheck check = check_generated(dir, hash, {});
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.comp"));
}

TEST_F(GeneratedDir, AKernelForAnotherSpecHashIsStaleAndStillReturned) {
  write_generated(dir, kernel);
  const StoreCheck check = check_generated(dir, "fedcba9876543210", {});
  EXPECT_EQ(check.state, StoreCheck::State::stale);
  EXPECT_THAT(check.problem, HasSubstr(hash));
  EXPECT_THAT(check.problem, HasSubstr("fedcba9876543210"));
  ASSERT_TRUE(check.kernel);
  EXPECT_EQ(check.kernel->source, kernel.source);
}

TEST_F(GeneratedDir, CorruptionIsReportedBeforeStaleness) {
  write_generated(dir, kernel);
  write_file_atomic(dir / "kernel.comp", "edited");
  EXPECT_EQ(check_generated(dir, "fedcba9876543210", {}).state, StoreCheck::State::corrupt);
}

TEST_F(GeneratedDir, WriteReplacesTheDirectoryWholesale) {
  write_generated(dir, kernel);
  write_file_atomic(dir / "notes.txt", "left over from the old kernel");
  GeneratedKernel replacement = sample_kernel("aaaaaaaaaaaaaaaa");
  replacement.source += "// new\n";
  replacement.manifest.source_hash = content_hash(replacement.source);
  write_generated(dir, replacement);

  EXPECT_FALSE(fs::exists(dir / "notes.txt")) << "files of the old kernel do not survive";
  EXPECT_EQ(read_file(dir / "kernel.comp"), replacement.source);
  EXPECT_EQ(check_generated(dir, "aaaaaaaaaaaaaaaa", {}).state, StoreCheck::State::current);
  std::vector<std::string> siblings;
  for (const auto& entry : fs::directory_iterator(dir.parent_path()))
    siblings.push_back(entry.path().filename());
  EXPECT_EQ(siblings, std::vector<std::string>{"relu"}) << "no staging directory is left behind";
}

TEST_F(GeneratedDir, WriteCreatesMissingParents) {
  const fs::path deep = scratch.path() / "a" / "b" / "relu";
  write_generated(deep, kernel);
  EXPECT_EQ(check_generated(deep, hash, {}).state, StoreCheck::State::current);
}

TEST_F(GeneratedDir, ASymbolicKernelIsCurrentUnderTheOpsDims) {
  const GeneratedKernel symbolic = symbolic_kernel();
  write_generated(dir, symbolic);
  const StoreCheck check = check_generated(dir, hash, kManifestDimNames);
  EXPECT_EQ(check.state, StoreCheck::State::current) << check.problem;
  ASSERT_TRUE(check.kernel);
  EXPECT_EQ(check.kernel->manifest.dispatch, "(rows + 63) / 64 cols 1");
  EXPECT_EQ(check.kernel->manifest.dims, kManifestDimNames);
}

// A constant extent written as an expression (`1024 / 256`) is kept as written, so the build reads the
// checked-in kernel as current, not corrupt; one of the same value written otherwise still agrees.
TEST_F(GeneratedDir, AConstantExpressionInTheDispatchLineIsKeptAsWrittenAndCurrent) {
  GeneratedKernel constant = symbolic_kernel();
  constant.source = std::string(constant.source).replace(constant.source.find("cols 1\n"), 7, "1024 / 256 1\n");
  constant.spirv = compile_glsl(constant.source).spirv;
  constant.manifest.source_hash = content_hash(constant.source);
  constant.manifest.spirv_hash = content_hash(constant.spirv);
  constant.manifest.dispatch = "(rows + 63) / 64 1024 / 256 1";
  write_generated(dir, constant);
  const json j = json::parse(read_file(dir / "manifest.json"));
  EXPECT_EQ(j.at("kernel").at("dispatch"), json::array({"(rows + 63) / 64", "1024 / 256", 1}));
  EXPECT_EQ(check_generated(dir, hash, kManifestDimNames).state, StoreCheck::State::current)
      << check_generated(dir, hash, kManifestDimNames).problem;

  constant.manifest.dispatch = "(rows + 63) / 64 4 1";
  write_generated(dir, constant);
  EXPECT_EQ(check_generated(dir, hash, kManifestDimNames).state, StoreCheck::State::current)
      << "4 is 1024 / 256";
  constant.manifest.dispatch = "(rows + 63) / 64 5 1";
  write_generated(dir, constant);
  EXPECT_EQ(check_generated(dir, hash, kManifestDimNames).state, StoreCheck::State::corrupt);
}

TEST_F(GeneratedDir, ASymbolicManifestWhoseDispatchDisagreesWithTheSourceIsCorrupt) {
  GeneratedKernel tampered = symbolic_kernel();
  tampered.manifest.dispatch = "(rows + 31) / 32 cols 1";
  write_generated(dir, tampered);
  const StoreCheck check = check_generated(dir, hash, kManifestDimNames);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem,
              HasSubstr("kernel.dispatch `(rows + 31) / 32 cols 1` disagrees with kernel.comp's "
                        "dispatch line `(rows + 63) / 64 cols 1`"));
}

TEST_F(GeneratedDir, ADispatchOverANameThatIsNotADimIsCorrupt) {
  GeneratedKernel tampered = symbolic_kernel();
  write_generated(dir, tampered);
  json j = to_json(tampered.manifest);
  j["kernel"]["dispatch"] = {"(n + 63) / 64", "cols", 1};
  write_file_atomic(dir / "manifest.json", j.dump());
  const StoreCheck check = check_generated(dir, hash, kManifestDimNames);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.dispatch `(n + 63) / 64 cols 1`"));
  EXPECT_THAT(check.problem, HasSubstr("unknown name 'n'"));
}

TEST_F(GeneratedDir, DimsThatDifferFromTheOpsUnderTheSameSpecHashAreCorrupt) {
  write_generated(dir, symbolic_kernel());
  const std::vector<std::string> swapped{"cols", "rows"};
  for (const auto& dims : {std::vector<std::string>{"rows"}, swapped, std::vector<std::string>{}}) {
    const StoreCheck check = check_generated(dir, hash, dims);
    EXPECT_EQ(check.state, StoreCheck::State::corrupt) << dims.size() << " dims";
    EXPECT_THAT(check.problem, HasSubstr("kernel.dims disagrees with the op's dims"));
  }
}

TEST_F(GeneratedDir, DimsThatDifferUnderAnotherSpecHashAreStaleNotCorrupt) {
  write_generated(dir, symbolic_kernel());
  const StoreCheck check = check_generated(dir, "fedcba9876543210", std::vector<std::string>{"rows"});
  EXPECT_EQ(check.state, StoreCheck::State::stale) << check.problem;
  ASSERT_TRUE(check.kernel) << "the old kernel is still there to start the next search from";
}

TEST_F(GeneratedDir, AStaticKernelCheckedAgainstAnOpWithDimsIsCorrupt) {
  write_generated(dir, kernel);
  const StoreCheck check = check_generated(dir, hash, kManifestDimNames);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr("kernel.dims"));
}

}  // namespace
}  // namespace kernelgen
