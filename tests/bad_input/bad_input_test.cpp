// Bad input the generator must survive with a message naming the problem: a model's reply of megabytes or of
// random bytes, a kernel source or spec holding a runaway line or number, a tampered or truncated manifest.json
// under generated/<op>/, and a broken record beside good ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/kernel_source.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/search/extract.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/manifest.hpp"
#include "kernelgen/store/record.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr size_t kMegabyte = size_t{1} << 20;

std::string random_bytes(size_t size) {
  std::mt19937 rng(7);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = static_cast<char>(rng() & 0xff);
  return bytes;
}

TEST(BadCompletion, AReplyOfSeveralMegabytesIsExtractedWhole) {
  std::string body = "#version 450\n// kernelgen: dispatch 1 1 1\n";
  while (body.size() < 8 * kMegabyte) body += "  y[i] = max(x[i], 0.0);  // one more line of a runaway reply\n";
  const Extraction extraction = extract_kernel("Here it is:\n```glsl\n" + body + "```\n");
  ASSERT_TRUE(extraction.ok) << extraction.error;
  EXPECT_EQ(extraction.code, body);
  std::string error;
  EXPECT_TRUE(parse_dispatch_line(extraction.code, {}, &error)) << error;
}

TEST(BadCompletion, RandomBytesWithNulsAreRefusedAskingForAGlslBlock) {
  std::string bytes = random_bytes(kMegabyte);
  for (char& byte : bytes)
    if (byte == '`' || byte == '~') byte = '\0';
  const Extraction extraction = extract_kernel(bytes);
  EXPECT_FALSE(extraction.ok);
  EXPECT_THAT(extraction.error, HasSubstr("no fenced code block"));
}

TEST(BadCompletion, RandomBytesInsideAGlslBlockAreTakenAsTheyAreForTheCompilerToRefuse) {
  const std::string bytes = random_bytes(4096);
  std::string line_safe = bytes;
  for (char& byte : line_safe)
    if (byte == '\n' || byte == '\r') byte = '\0';
  const Extraction extraction = extract_kernel("```glsl\n" + line_safe + "\n```\n");
  ASSERT_TRUE(extraction.ok) << extraction.error;
  EXPECT_EQ(extraction.code, line_safe + "\n");
}

// std::regex, which these parsers used, overflowed the stack on a line of ~100 KB.
TEST(BadKernelSource, AMegabyteLongDispatchLineIsAShortErrorNotACrash) {
  std::string error;
  const std::string line = "// kernelgen: dispatch 8 1 1" + std::string(4 * kMegabyte, ' ') + "x";
  EXPECT_FALSE(parse_dispatch_line("#version 450\n" + line + "\n", {}, &error));
  EXPECT_THAT(error, HasSubstr("line 2: "));
  EXPECT_THAT(error, HasSubstr("expected `// kernelgen: dispatch X Y Z`"));
  EXPECT_LT(error.size(), 512u) << "the offending line is quoted only in part";
}

// A megabyte of padding around the grid is not counted against the expression's 4096-character limit
// (runtime/src/dim_expression.cpp): the line reads as 2 3 4.
TEST(BadKernelSource, AMegabyteOfSpacesInsideTheMarkerStillReadsTheGrid) {
  std::string error;
  const auto grid = parse_dispatch_line(
      "//" + std::string(kMegabyte, ' ') + "kernelgen: dispatch 2 3 4" + std::string(kMegabyte, '\t'), {},
      &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->evaluate({}).z, 4u);
}

json relu_spec() {
  return {{"name", "relu"},
          {"inputs", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {8}}}}},
          {"outputs", {{{"name", "y"}, {"dtype", "f32"}, {"shape", {8}}}}}};
}

std::string spec_error(const json& spec) {
  try {
    parse_op_spec(spec);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(BadSpec, AMegabyteLongNameIsRefusedNotACrash) {
  json spec = relu_spec();
  spec["name"] = std::string(kMegabyte, 'a') + "-";
  EXPECT_THAT(spec_error(spec), HasSubstr("is not a C identifier"));
  spec["name"] = std::string(kMegabyte, 'a');
  EXPECT_EQ(parse_op_spec(spec).name.size(), kMegabyte);
}

TEST(BadSpec, AShapeWhoseElementCountOverflows64BitsIsRefused) {
  json spec = relu_spec();
  // Each extent fits the uint32 a kernel receives it in; their product does not fit 64 bits.
  spec["inputs"][0]["shape"] = {4294967295u, 4294967295u, 4294967295u};
  EXPECT_THAT(spec_error(spec), HasSubstr("inputs[0].shape (x): more than 2^31 elements"));
  spec["inputs"][0]["shape"] = {3, int64_t{1} << 62};
  EXPECT_THAT(spec_error(spec),
              HasSubstr("inputs[0].shape: 4611686018427387904 is not a positive integer below 2^32"));
}

TEST(BadSpec, ACountPastTheRangeOfIntIsRefusedNamingTheField) {
  json spec = relu_spec();
  spec["search"] = {{"samples", 1e300}};
  EXPECT_THAT(spec_error(spec), HasSubstr("op spec 'relu': samples: 1e+300 is out of range"));
  spec = relu_spec();
  spec["contract"] = -3e9;
  EXPECT_THAT(spec_error(spec), HasSubstr("contract: -3000000000.0 is out of range"));
}

// generated/relu/ as checked in, copied to a scratch directory to be damaged.
class TamperedGeneratedDir : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir);
    for (const char* file : {"manifest.json", "kernel.comp", "kernel.spv"})
      fs::copy_file(fs::path(KERNELGEN_TEST_GENERATED_DIR) / "relu" / file, dir / file);
    const Manifest manifest = parse_manifest(json::parse(read_file(dir / "manifest.json")));
    spec_hash = manifest.spec_hash;
    dims = manifest.dims;
    ASSERT_EQ(check_generated(dir, spec_hash, dims).state, StoreCheck::State::current);
  }
  test::ScratchDir scratch;
  const fs::path dir = scratch.path() / "generated" / "relu";
  std::string spec_hash;
  std::vector<std::string> dims;  // the op's, which its dispatch line may use
};

TEST_F(TamperedGeneratedDir, AManifestCutShortIsCorruptAndNamed) {
  fs::resize_file(dir / "manifest.json", fs::file_size(dir / "manifest.json") / 2);
  const StoreCheck check = check_generated(dir, spec_hash, dims);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "manifest.json").string() + " is not valid JSON"));
  EXPECT_FALSE(check.kernel);
}

TEST_F(TamperedGeneratedDir, AManifestVouchingForAnotherSpirvIsCaughtByTheHash) {
  json manifest = json::parse(read_file(dir / "manifest.json"));
  std::string& hash = manifest["kernel"]["spirv_hash"].get_ref<std::string&>();
  hash[0] = hash[0] == '0' ? '1' : '0';
  write_file_atomic(dir / "manifest.json", manifest.dump(2));
  const StoreCheck check = check_generated(dir, spec_hash, dims);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.spv").string() + " does not match the hash in manifest.json"));
}

TEST_F(TamperedGeneratedDir, ASpirvCutToHalfIsCaughtByTheHash) {
  fs::resize_file(dir / "kernel.spv", fs::file_size(dir / "kernel.spv") / 8 * 4);
  const StoreCheck check = check_generated(dir, spec_hash, dims);
  EXPECT_EQ(check.state, StoreCheck::State::corrupt);
  EXPECT_THAT(check.problem, HasSubstr((dir / "kernel.spv").string() + " does not match the hash in manifest.json"));
}

TEST(BadRecord, ARecordWithANumericTimestampIsSkippedAndTheOthersStillLoad) {
  const test::ScratchDir scratch;
  const json good = {{"uuid", "a"}, {"timestamp", "2025-01-02T03:04:05.000Z"}};
  write_file_atomic(scratch.path() / "c_good.json", good.dump());
  write_file_atomic(scratch.path() / "r_also_good.json", good.dump());
  write_file_atomic(scratch.path() / "r_bad.json", json{{"uuid", "b"}, {"timestamp", 5}}.dump());
  write_file_atomic(scratch.path() / "r_binary.json", random_bytes(1024));
  testing::internal::CaptureStderr();
  const auto records = load_records(scratch.path());
  const std::string messages = testing::internal::GetCapturedStderr();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_THAT(messages, HasSubstr("skipping " + (scratch.path() / "r_bad.json").string() + ": its timestamp is not a string"));
  EXPECT_THAT(messages, HasSubstr("skipping " + (scratch.path() / "r_binary.json").string()));
}

}  // namespace
}  // namespace kernelgen

namespace kernelgen {
namespace {

TEST(BadPath, ReadingADirectoryAsAFileIsAnErrorNamingIt) {
  test::ScratchDir scratch;
  try {
    read_file(scratch.path());
    FAIL() << "read_file accepted a directory";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(scratch.path().string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace kernelgen
