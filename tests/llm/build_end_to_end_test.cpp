// The whole loop through CMake: a small project declares relu as the catalog does (its reference, a symbolic
// batch) without a kernel, the fake OpenAI server stands in for the model, and `cmake --build` generates,
// validates and checks in the kernel. And offline, the same build fails saying how to generate. The
// sub-project compiles kernelgen once; later runs reuse its build tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fake_llm_server.hpp"
#include "generator/tampered_spirv.hpp"
#include "kernelgen/compile/compile.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/record.hpp"
#include "relu_replies.hpp"
#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::fenced;
using test::kLeakyReluKernel;
using test::kReluKernel;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKey = "sk-test-end-to-end-SECRET-5f3a9c1e7b";
const fs::path kWork = KERNELGEN_E2E_WORK_DIR;
const fs::path kProject = kWork / "project";
const fs::path kBuild = kWork / "build";
const fs::path kCandidates = kWork / "candidates";

std::string quoted(const fs::path& path) {
  return "\"" + path.string() + "\"";
}

// Runs a shell command with its output in `log`; returns its exit status.
int run(const std::string& command, const fs::path& log) {
  const int status = std::system((command + " > " + quoted(log) + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A fresh copy of the small project, without generated/, and no candidate log. The build tree is kept, so
// kernelgen itself compiles only once; the op's kernel data is removed so that the build step runs again.
void prepare_project() {
  fs::remove_all(kProject);
  fs::remove_all(kCandidates);
  fs::create_directories(kProject / "relu");
  fs::copy_file(KERNELGEN_E2E_RELU_REFERENCE, kProject / "relu" / "reference.cpp");
  write_file_atomic(kProject / "CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(kernelgen_llm_end_to_end LANGUAGES CXX)
add_subdirectory(")" + std::string(KERNELGEN_E2E_SOURCE_DIR) +
                                                     R"(" kernelgen)
kernelgen_add_op(relu
  REFERENCE   relu/reference.cpp
  DESCRIPTION "y = max(x, 0), elementwise, over a batch of 8x16x16 feature maps"
  INPUTS      x:f32[batch,8,16,16]
  OUTPUTS     y:f32[batch,8,16,16]
  DIMS        batch=1,3,4,16
  SAMPLES     2
  ROUNDS      3)
)");
  fs::remove(kBuild / "kernelgen" / "relu" / "kernel_data.cpp");
}

// `allow_other_glslang` is always given, as the build tree and its cache outlive a test.
int configure(bool offline, const fs::path& log, bool allow_other_glslang = false) {
  return run(
      std::string(quoted(KERNELGEN_E2E_CMAKE)) + " -S " + quoted(kProject) + " -B " + quoted(kBuild) +
          " -G " + quoted(KERNELGEN_E2E_GENERATOR) + " -DCMAKE_CXX_COMPILER=" + quoted(KERNELGEN_E2E_CXX) +
          " -DCMAKE_BUILD_TYPE=" KERNELGEN_E2E_BUILD_TYPE +
          // This build's ccache, where it has one: kernelgen's sources then come from its cache.
          (std::string(KERNELGEN_E2E_LAUNCHER).empty()
               ? std::string()
               : " -DCMAKE_CXX_COMPILER_LAUNCHER=" + quoted(KERNELGEN_E2E_LAUNCHER)) +
          " -DKERNELGEN_BUILD_CATALOG=OFF -DKERNELGEN_BUILD_TESTS=OFF -DKERNELGEN_BUILD_BENCHMARKS=OFF"
          " -DKERNELGEN_BUILD_OP_TESTS=OFF -DKERNELGEN_MODEL=openai/gpt-4o-mini -DKERNELGEN_CACHE_DIR=" +
          quoted(kCandidates) + " -DKERNELGEN_OFFLINE=" + (offline ? "ON" : "OFF") +
          " -DKERNELGEN_ALLOW_OTHER_GLSLANG=" + (allow_other_glslang ? "ON" : "OFF"),
      log);
}

int build(const fs::path& log) {
  return run(std::string(quoted(KERNELGEN_E2E_CMAKE)) + " --build " + quoted(kBuild), log);
}

// Every regular file under `root` whose bytes contain `secret`.
std::vector<fs::path> files_containing(const fs::path& root, const std::string& secret) {
  std::vector<fs::path> found;
  for (const auto& entry :
       fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(secret) != std::string::npos) found.push_back(entry.path());
  }
  return found;
}

class BuildEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(kWork);
    prepare_project();
  }
  test::FakeLlmServer server_;
  test::ScopedEnv base_url_{"OPENAI_BASE_URL", server_.base_url().c_str()};
  test::ScopedEnv key_{"OPENAI_API_KEY", kKey.c_str()};
  test::ScopedEnv no_model_{"KERNELGEN_MODEL", nullptr};
  test::ScopedEnv no_record_{"KERNELGEN_RECORD", nullptr};
  test::ScopedEnv no_other_glslang_{"KERNELGEN_ALLOW_OTHER_GLSLANG", nullptr};
};

TEST_F(BuildEndToEnd, BuildGeneratesValidatesAndChecksInTheKernelFromTheModel) {
  // Round 1: a wrong kernel and a reply without code; round 2: the right kernel and the wrong one again.
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), {1500, 300}, "stop", "gpt-4o-mini"));
  server_.enqueue(test::openai_reply(test::kReplyWithoutCode, {1500, 20}, "stop", "gpt-4o-mini"));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), {2500, 300}, "stop", "gpt-4o-mini"));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), {2500, 300}, "stop", "gpt-4o-mini"));

  const fs::path configure_log = kWork / "configure.log", build_log = kWork / "build.log";
  ASSERT_EQ(configure(false, configure_log), 0) << read_file(configure_log);
  ASSERT_EQ(build(build_log), 0) << read_file(build_log);
  const std::string output = read_file(build_log);
  EXPECT_THAT(output, AllOf(HasSubstr("kernelgen: op 'relu'"), HasSubstr("checked in")));

  const fs::path generated = kProject / "generated" / "relu";
  for (const char* file : {"kernel.comp", "kernel.spv", "manifest.json"})
    EXPECT_TRUE(fs::exists(generated / file)) << generated / file;
  EXPECT_EQ(read_file(generated / "kernel.comp"), kReluKernel);
  const json manifest = json::parse(read_file(generated / "manifest.json"));
  EXPECT_EQ(manifest["author"], "openai/gpt-4o-mini");
  EXPECT_EQ(manifest["search"]["model"], "openai/gpt-4o-mini");
  EXPECT_EQ(manifest["search"]["rounds"], 2);
  EXPECT_EQ(manifest["search"]["candidates"], 4);
  EXPECT_EQ(manifest["search"]["tokens"], 1800 + 1520 + 2800 + 2800);

  const auto records = load_records(kCandidates);
  ASSERT_EQ(records.size(), 4u);
  int correct = 0;
  for (const json& record : records) {
    EXPECT_EQ(record["model"], "openai/gpt-4o-mini");
    if (record["status"] == "correct") {
      ++correct;
      EXPECT_TRUE(record["file"].get<std::string>().rfind("c_relu_", 0) == 0) << record["file"];
      EXPECT_EQ(record["round"], 2);
    } else {
      EXPECT_TRUE(record["file"].get<std::string>().rfind("r_relu_", 0) == 0) << record["file"];
      EXPECT_FALSE(record["verdict"]["reason"].get<std::string>().empty()) << record["file"];
    }
  }
  EXPECT_EQ(correct, 1);

  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  for (const auto& request : requests) {
    EXPECT_EQ(request.path, "/v1/chat/completions");
    EXPECT_EQ(request.header("authorization"), "Bearer " + kKey);
    EXPECT_EQ(request.json()["model"], "gpt-4o-mini");
  }
  EXPECT_THAT(requests[2].json()["messages"][1]["content"].get<std::string>(),
              HasSubstr("INCORRECT_NUMERICAL"));

  for (const fs::path& root : {kBuild, kProject, kCandidates})
    EXPECT_THAT(files_containing(root, kKey), ::testing::IsEmpty()) << "the API key leaked under " << root;
  EXPECT_THAT(output, Not(HasSubstr(kKey)));
}

TEST_F(BuildEndToEnd, OfflineBuildWithALiveModelAndNoKernelFailsSayingHowToGenerate) {
  const fs::path configure_log = kWork / "configure_offline.log", build_log = kWork / "build_offline.log";
  ASSERT_EQ(configure(true, configure_log), 0) << read_file(configure_log);
  EXPECT_NE(build(build_log), 0);
  const std::string output = read_file(build_log);
  EXPECT_THAT(output, AllOf(HasSubstr("KERNELGEN_OFFLINE=ON"), HasSubstr("relu"), HasSubstr("To generate it"),
                            HasSubstr("kernelgen_regenerate_relu"), Not(HasSubstr(kKey))));
  EXPECT_FALSE(fs::exists(kProject / "generated" / "relu"));
  EXPECT_EQ(server_.request_count(), 0u);
}

// Source and binary agree: a kernel.spv that kernel.comp does not compile to fails the build, however well its
// hash was updated. One that another glslang compiled fails saying so, and is built from kernel.comp where
// KERNELGEN_ALLOW_OTHER_GLSLANG allows it.
TEST_F(BuildEndToEnd, AKernelSpvThatItsKernelCompDoesNotCompileToFailsTheBuild) {
  server_.enqueue(test::openai_reply(fenced(kReluKernel), {1500, 300}, "stop", "gpt-4o-mini"));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), {1500, 300}, "stop", "gpt-4o-mini"));
  const fs::path log = kWork / "source_and_binary.log";
  ASSERT_EQ(configure(false, log), 0) << read_file(log);
  ASSERT_EQ(build(log), 0) << read_file(log);
  const fs::path generated = kProject / "generated" / "relu";
  const std::vector<uint32_t> checked_in = read_spirv(generated / "kernel.spv");
  EXPECT_EQ(json::parse(read_file(generated / "manifest.json"))["kernel"]["compiler"], compiler_version());

  // Offline from here on, so that nothing is regenerated.
  ASSERT_EQ(configure(true, log), 0) << read_file(log);
  test::replace_spirv(generated, compile_glsl(kLeakyReluKernel).spirv);
  EXPECT_NE(build(log), 0);
  EXPECT_THAT(read_file(log), HasSubstr((generated / "kernel.spv").string() + " is not what " +
                                        (generated / "kernel.comp").string() + " compiles to"));

  // The same source as another glslang would compile it, and its manifest record it.
  const std::vector<uint32_t> theirs = test::marked_by_generator_version(checked_in, 10);
  test::replace_spirv(generated, theirs, "glslang 11.9.0");
  EXPECT_NE(build(log), 0);
  EXPECT_THAT(read_file(log), AllOf(HasSubstr((generated / "kernel.spv").string() + " was compiled by glslang "
                                              "11.9.0, and this kernelgen's " + compiler_version()),
                                    HasSubstr("KERNELGEN_ALLOW_OTHER_GLSLANG=1"), Not(HasSubstr("is not what"))));

  ASSERT_EQ(configure(true, log, true), 0) << read_file(log);
  ASSERT_EQ(build(log), 0) << read_file(log);
  EXPECT_THAT(read_file(log),
              HasSubstr("warning: " + (generated / "kernel.spv").string() + " was compiled by glslang 11.9.0"));
  char header[64];
  std::snprintf(header, sizeof header, "0x%08x, 0x%08x, 0x%08x,", checked_in[0], checked_in[1], checked_in[2]);
  EXPECT_THAT(read_file(kBuild / "kernelgen" / "relu" / "kernel_data.cpp"), HasSubstr(header))
      << "the wrapper holds kernel.comp as this glslang compiles it";
  EXPECT_EQ(read_spirv(generated / "kernel.spv"), theirs) << "the checked-in kernel.spv is left as it is";
  EXPECT_EQ(server_.request_count(), 2u);
}

}  // namespace
}  // namespace kernelgen
