// `kernelgen build-op` as the build runs it, on the catalog's relu with its kernel store in a scratch folder:
// what it does with secrets and budgets before it asks a model, and the warning about a .env that git would
// commit. The fake OpenAI server stands in for the model and counts what reached it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fake_llm_server.hpp"
#include "generator/scratch_dir.hpp"
#include "kernelgen/compile/compile.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"
#include "kernelgen/store/manifest.hpp"
#include "relu_replies.hpp"
#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKey = "sk-test-build-step-SECRET-31415926";

std::string quoted(const fs::path& path) {
  return "'" + path.string() + "'";
}

// Runs a shell command; returns its exit status and leaves stdout and stderr together in `output`.
int run(const std::string& command, const fs::path& log, std::string& output) {
  const int status = std::system((command + " > " + quoted(log) + " 2>&1").c_str());
  output = read_file(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool git_available() {
  return std::system("git --version > /dev/null 2>&1") == 0;
}

class BuildOp : public ::testing::Test {
 protected:
  // relu's spec with these search settings, its checked-in kernel to be under the scratch folder (so there is
  // none, and the step searches).
  fs::path spec_with(const json& search) {
    json spec = json::parse(read_file(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json"));
    spec["generated_dir"] = (dir_.path() / "generated" / "relu").string();
    spec["search"] = search;
    const fs::path path = dir_.path() / "spec.json";
    write_file_atomic(path, spec.dump(2));
    return path;
  }

  // `kernelgen build-op` on the spec with the extra arguments; `environment` prefixes the command
  // (VAR=value).
  int build_op(const fs::path& spec, const std::string& arguments, std::string& output,
               const std::string& environment = "") {
    return run(environment + " " + quoted(KERNELGEN_TEST_TOOL) + " build-op --spec " + quoted(spec) +
                   " --reference " + quoted(fs::path(KERNELGEN_TEST_SPECS_DIR) / "relu" / "reference.so") +
                   " --out " + quoted(output_file()) + " --log-dir " + quoted(dir_.path() / "candidates") +
                   " " + arguments,
               dir_.path() / "build_op.log", output);
  }

  fs::path output_file() const { return dir_.path() / "kernel_data.cpp"; }

  // A project folder with a .env, the one a consumer's build reads.
  fs::path project_dotenv() {
    const fs::path project = dir_.path() / "project";
    fs::create_directories(project);
    write_file_atomic(project / ".env", "KERNELGEN_TOKEN_BUDGET=100000\n");
    return project / ".env";
  }

  void git(const fs::path& directory, const std::string& arguments) {
    ASSERT_EQ(std::system(("git -C " + quoted(directory) + " " + arguments + " > /dev/null 2>&1").c_str()), 0)
        << "git " << arguments;
  }

  test::ScratchDir dir_;
  test::FakeLlmServer server_;
  test::ScopedEnv base_url_{"OPENAI_BASE_URL", server_.base_url().c_str()};
  test::ScopedEnv key_{"OPENAI_API_KEY", kKey.c_str()};
  test::ScopedEnv no_model_{"KERNELGEN_MODEL", nullptr};
  test::ScopedEnv no_prices_{"KERNELGEN_PRICES", nullptr};
  test::ScopedEnv no_record_{"KERNELGEN_RECORD", nullptr};
  test::ScopedEnv no_reduced_{"KERNELGEN_REDUCED_VALIDATION", nullptr};
  // git looks for the work tree no further up than the scratch folder.
  test::ScopedEnv git_ceiling_{"GIT_CEILING_DIRECTORIES", dir_.path().c_str()};
};

TEST_F(BuildOp, AnApiKeyGivenWithSetIsRefusedBeforeAnythingIsRead) {
  // Not a spec at all: reading it would be a different error.
  const fs::path not_a_spec = dir_.path() / "not_a_spec.json";
  write_file_atomic(not_a_spec, "{");
  for (const std::string name :
       {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"}) {
    SCOPED_TRACE(name);
    std::string output;
    EXPECT_EQ(
        build_op(not_a_spec, "--set KERNELGEN_MODEL=openai/gpt-4o --set " + name + "=sk-cli-SECRET", output),
        2);
    EXPECT_THAT(output, AllOf(HasSubstr("--set " + name + "=...: an API key on the command line"),
                              HasSubstr("process list"),
                              HasSubstr("Set " + name + " in the environment or in the .env file instead"),
                              Not(HasSubstr("sk-cli-SECRET")), Not(HasSubstr("spec"))));
  }
  EXPECT_FALSE(fs::exists(output_file()));
}

TEST_F(BuildOp, BudgetForAModelMissingFromThePriceTableStopsBeforeAnyRequest) {
  const fs::path spec = spec_with(
      {{"samples", 1}, {"rounds", 1}, {"model", "openai/kernelgen-test-unpriced"}, {"budget_usd", 0.5}});
  std::string output;
  EXPECT_EQ(build_op(spec, "", output), 1);
  EXPECT_THAT(output,
              AllOf(HasSubstr("op 'relu': BUDGET_USD 0.5 cannot be kept"),
                    HasSubstr("no price for openai/kernelgen-test-unpriced"), HasSubstr("KERNELGEN_PRICES"),
                    HasSubstr("drop BUDGET_USD"), Not(HasSubstr(kKey))));
  EXPECT_EQ(server_.request_count(), 0u);
  EXPECT_FALSE(fs::exists(output_file()));
}

TEST_F(BuildOp, BudgetForAModelPricedByKernelgenPricesSearches) {
  const fs::path prices = dir_.path() / "prices.json";
  write_file_atomic(prices, R"({"models": {"openai/kernelgen-test-unpriced": {"input": 1, "output": 2}}})");
  test::ScopedEnv priced("KERNELGEN_PRICES", prices.c_str());
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(test::kReplyWithoutCode); });
  const fs::path spec = spec_with(
      {{"samples", 1}, {"rounds", 1}, {"model", "openai/kernelgen-test-unpriced"}, {"budget_usd", 0.5}});
  std::string output;
  EXPECT_EQ(build_op(spec, "", output), 1) << "the one reply has no code";
  EXPECT_THAT(output, AllOf(HasSubstr("no candidate passed validation"), Not(HasSubstr("cannot be kept"))));
  EXPECT_EQ(server_.request_count(), 1u);
}

// Without the Khronos layer (here: a VK_LAYER_PATH with none in it) a model's search would run on reduced
// validation: it stops before asking, naming the package and the setting that accepts it.
// A model's search for relu whose build sees no Khronos layer: the environment prefix that hides it (and turns
// off the layer's messages that CI's test preset asks for, KERNELGEN_VK_VALIDATION=1, which need it).
std::string without_the_layer(const fs::path& scratch) {
  const fs::path no_layers = scratch / "no_layers";
  fs::create_directories(no_layers);
  return "VK_LAYER_PATH=" + no_layers.string() + " VK_ADD_LAYER_PATH= KERNELGEN_VK_VALIDATION=0";
}

// The environment prefix of a build that sees no CPU device: lavapipe taken for a GPU alone (validation_devices.hpp).
const std::string kWithoutACpuDevice = "KERNELGEN_TEST_DEVICE_TYPE=discrete";

TEST_F(BuildOp, AModelsSearchOnReducedValidationStopsNamingWhatIsMissing) {
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(test::fenced(test::kReluKernel)); });
  const fs::path spec = spec_with({{"samples", 1}, {"rounds", 1}, {"model", "openai/gpt-4o"}});
  std::string output;
  EXPECT_EQ(build_op(spec, "", output, without_the_layer(dir_.path())), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("op 'relu': validation here would be reduced"),
                            HasSubstr("no Khronos validation layer (vulkan-validationlayers)"),
                            HasSubstr("KERNELGEN_REDUCED_VALIDATION=1")));
  EXPECT_EQ(server_.request_count(), 0u);
  EXPECT_FALSE(fs::exists(dir_.path() / "generated" / "relu" / "manifest.json"));

  EXPECT_EQ(build_op(spec, "", output, kWithoutACpuDevice), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("op 'relu': validation here would be reduced: no CPU Vulkan device (lavapipe: "
                                      "mesa-vulkan-drivers)"),
                            HasSubstr("apt-get install mesa-vulkan-drivers)")));
  EXPECT_EQ(server_.request_count(), 0u);
}

TEST_F(BuildOp, ReducedValidationAcceptedIsRecordedInTheManifest) {
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(test::fenced(test::kReluKernel)); });
  const fs::path spec = spec_with({{"samples", 1}, {"rounds", 1}, {"model", "openai/gpt-4o"}});
  std::string output;
  ASSERT_EQ(build_op(spec, "--set KERNELGEN_REDUCED_VALIDATION=1", output, without_the_layer(dir_.path())), 0)
      << output;
  EXPECT_THAT(output, HasSubstr("reduced validation, as KERNELGEN_REDUCED_VALIDATION=1 accepts"));
  const json manifest = json::parse(read_file(dir_.path() / "generated" / "relu" / "manifest.json"));
  EXPECT_EQ(manifest["validation"]["mode"], "reduced");
  EXPECT_EQ(manifest["validation"]["missing"], json::array({"validation_layer"}));
}

class DeclaredOp : public BuildOp {
 protected:
  // relu's spec declaring test::kReluKernel as its KERNEL and, given one, `variant` as VARIANTS same=<file>.
  fs::path declared(const std::optional<std::string>& variant = std::nullopt) {
    const fs::path spec = spec_with(json::object());
    json text = json::parse(read_file(spec));
    write_file_atomic(dir_.path() / "my_relu.comp", test::kReluKernel);
    text["kernel"] = (dir_.path() / "my_relu.comp").string();
    if (variant) {
      write_file_atomic(dir_.path() / "same.comp", *variant);
      text["variants"] = json::array({{{"name", "same"}, {"kernel", (dir_.path() / "same.comp").string()}}});
    }
    write_file_atomic(spec, text.dump(2));
    return spec;
  }

  json manifest_at(const fs::path& relative) const {
    return json::parse(read_file(dir_.path() / "generated" / "relu" / relative / "manifest.json"));
  }
};

TEST_F(DeclaredOp, UnderTheFullProtocolItsManifestSaysFull) {
  std::string output;
  ASSERT_EQ(build_op(declared(), "", output), 0) << output;
  EXPECT_THAT(output, Not(HasSubstr("reduced")));
  EXPECT_EQ(manifest_at("")["validation"]["mode"], "full");
  EXPECT_FALSE(manifest_at("")["validation"].contains("missing"));
}

TEST_F(DeclaredOp, OnReducedValidationItStopsNamingWhatIsMissingUnlessAcceptedThenItsManifestSaysSo) {
  const fs::path spec = declared();
  const std::string gpu_alone = without_the_layer(dir_.path()) + " " + kWithoutACpuDevice;
  std::string output;
  EXPECT_EQ(build_op(spec, "", output, gpu_alone), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("op 'relu': validation here would be reduced: no CPU Vulkan device (lavapipe: "
                                      "mesa-vulkan-drivers), no Khronos validation layer (vulkan-validationlayers)"),
                            HasSubstr("apt-get install mesa-vulkan-drivers vulkan-validationlayers)"),
                            HasSubstr("KERNELGEN_REDUCED_VALIDATION=1")));
  EXPECT_FALSE(fs::exists(dir_.path() / "generated" / "relu" / "manifest.json"));

  ASSERT_EQ(build_op(spec, "", output, gpu_alone + " KERNELGEN_REDUCED_VALIDATION=1"), 0) << output;
  EXPECT_THAT(output, HasSubstr("op 'relu': reduced validation, as KERNELGEN_REDUCED_VALIDATION=1 accepts"));
  EXPECT_EQ(manifest_at("")["validation"]["mode"], "reduced");
  EXPECT_EQ(manifest_at("")["validation"]["missing"], json::array({"cpu_device", "validation_layer"}));
}

TEST_F(DeclaredOp, AVariantOnReducedValidationStopsUnlessAcceptedThenItsManifestSaysSo) {
  // Checked in under the full protocol, then changed: the op's own kernel stays current, the variant is validated.
  std::string output;
  ASSERT_EQ(build_op(declared(test::kReluKernel), "", output), 0) << output;
  EXPECT_EQ(manifest_at("variants/same")["validation"]["mode"], "full");
  const std::string before = read_file(dir_.path() / "generated" / "relu" / "variants" / "same" / "manifest.json");
  const fs::path spec = declared(test::kReluKernel + "// edited\n");

  EXPECT_EQ(build_op(spec, "", output, without_the_layer(dir_.path())), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("op 'relu': variant 'same': validation here would be reduced: no Khronos "
                                      "validation layer (vulkan-validationlayers)"),
                            Not(HasSubstr("op 'relu': validation here would be reduced"))));
  EXPECT_EQ(read_file(dir_.path() / "generated" / "relu" / "variants" / "same" / "manifest.json"), before);

  ASSERT_EQ(build_op(spec, "", output, without_the_layer(dir_.path()) + " KERNELGEN_REDUCED_VALIDATION=1"), 0)
      << output;
  EXPECT_THAT(output, HasSubstr("variant 'same': reduced validation, as KERNELGEN_REDUCED_VALIDATION=1 accepts"));
  EXPECT_EQ(manifest_at("variants/same")["validation"]["mode"], "reduced");
  EXPECT_EQ(manifest_at("variants/same")["validation"]["missing"], json::array({"validation_layer"}));
}

TEST_F(BuildOp, DotenvThatGitWouldCommitIsWarnedAbout) {
  if (!git_available()) GTEST_SKIP() << "git is not installed";
  const fs::path dotenv = project_dotenv();
  git(dotenv.parent_path(), "init -q");
  const fs::path spec = spec_with({{"samples", 1}, {"rounds", 1}});
  std::string output;
  EXPECT_EQ(build_op(spec, "--dotenv " + quoted(dotenv), output), 1) << "no model is configured";
  const std::string warning =
      "kernelgen: warning: " + dotenv.string() + " is where API keys go, and git would commit it";
  EXPECT_THAT(output, AllOf(HasSubstr(warning), HasSubstr("Add .env to the project's .gitignore")));

  // Listed in .gitignore but committed already: git goes on tracking it.
  write_file_atomic(dotenv.parent_path() / ".gitignore", ".env\n");
  git(dotenv.parent_path(), "add -f .env");
  EXPECT_EQ(build_op(spec, "--dotenv " + quoted(dotenv), output), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("git would commit it"), HasSubstr("git rm --cached .env")));
}

TEST_F(BuildOp, DotenvThatGitIgnoresIsNotWarnedAbout) {
  if (!git_available()) GTEST_SKIP() << "git is not installed";
  const fs::path dotenv = project_dotenv();
  git(dotenv.parent_path(), "init -q");
  write_file_atomic(dotenv.parent_path() / ".gitignore", ".env\n");
  std::string output;
  EXPECT_EQ(build_op(spec_with({{"samples", 1}, {"rounds", 1}}), "--dotenv " + quoted(dotenv), output), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("no model is configured"), Not(HasSubstr("warning"))));
}

TEST_F(BuildOp, DotenvOutsideAGitWorkTreeOrWithoutGitIsNotWarnedAbout) {
  const fs::path dotenv = project_dotenv();
  const fs::path spec = spec_with({{"samples", 1}, {"rounds", 1}});
  std::string output;
  EXPECT_EQ(build_op(spec, "--dotenv " + quoted(dotenv), output), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("no model is configured"), Not(HasSubstr("warning"))));

  if (git_available()) git(dotenv.parent_path(), "init -q");
  EXPECT_EQ(build_op(spec, "--dotenv " + quoted(dotenv), output, "PATH=/nonexistent-kernelgen-test"), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("no model is configured"), Not(HasSubstr("warning"))));
}

}  // namespace
}  // namespace kernelgen

namespace kernelgen {
namespace {

// search.chosen_among of a kernel chosen among the slow relu and the fast one: their content hashes, sorted.
json slow_and_fast_hashes() {
  std::vector<std::string> both{kernelgen::content_hash(test::kSlowReluKernel),
                                kernelgen::content_hash(test::kReluKernel)};
  std::sort(both.begin(), both.end());
  return both;
}

class OptimiseOp : public BuildOp {
 protected:
  // relu at a bench size lavapipe times quickly and steadily, validated at batch 1 and 2 besides the sizes
  // its kernels' workgroups add (the slow kernel's cost grows with the square of the batch), with a cassette
  // of these replies.
  fs::path replayed_spec(const std::vector<std::pair<std::string, std::string>>& replies) {
    fs::create_directories(dir_.path() / "cassettes");
    write_file_atomic(dir_.path() / "cassettes" / "relu.json", test::hand_written_cassette(replies));
    const fs::path spec = spec_with({{"samples", 1}, {"rounds", 1}, {"opt_rounds", 1}});
    json text = json::parse(read_file(spec));
    text["dims"] = {{"batch", {1, 2}}};
    text["bench_dims"] = {{"batch", 64}};
    text["cpu_bench_dims"] = {{"batch", 64}};  // lavapipe times CPU_BENCH_DIMS (the catalog's relu: 1024)
    write_file_atomic(spec, text.dump(2));
    return spec;
  }

  int replay(const fs::path& spec, const std::string& flag, std::string& output) {
    return build_op(spec, flag + " --set KERNELGEN_MODEL=replay --cassette-dir " + quoted(dir_.path() / "cassettes"),
                    output);
  }

  json manifest() const { return json::parse(read_file(dir_.path() / "generated" / "relu" / "manifest.json")); }
};

TEST_F(OptimiseOp, WithoutACheckedInKernelItSaysToBuildFirst) {
  const fs::path spec = replayed_spec({});
  std::string output;
  EXPECT_EQ(replay(spec, "--optimise", output), 1);
  EXPECT_THAT(output, AllOf(HasSubstr("cannot optimise the checked-in kernel"), HasSubstr("Build (or regenerate) it")));
}

TEST_F(OptimiseOp, ReplacesTheCheckedInKernelOnlyWithAFasterOne) {
  const std::string ideas = "```json\n[{\"idea\": \"one store an element, not one a batch item\"}]\n```\n";
  // The regular build checks in round 1's slow kernel (the optimisation round's kernel is wrong).
  fs::path spec = replayed_spec({{"relu/r1/s0", test::fenced(test::kSlowReluKernel)},
                                 {"relu/o1/p0/ideas", ideas},
                                 {"relu/o1/p0/i0", test::fenced(test::kLeakyReluKernel)}});
  std::string output;
  ASSERT_EQ(replay(spec, "", output), 0) << output;
  EXPECT_EQ(manifest()["search"]["accepted_from"], "relu/r1/s0");
  const auto checked_in = fs::last_write_time(dir_.path() / "generated" / "relu" / "kernel.comp");

  // Optimising with the same wrong answer leaves the kernel as it was.
  ASSERT_EQ(replay(spec, "--optimise", output), 0) << output;
  EXPECT_THAT(output, HasSubstr("no kernel beat the checked-in one"));
  EXPECT_EQ(fs::last_write_time(dir_.path() / "generated" / "relu" / "kernel.comp"), checked_in);

  // A fast answer replaces it, and the manifest says from which idea and by how much.
  spec = replayed_spec({{"relu/o1/p0/ideas", ideas}, {"relu/o1/p0/i0", test::fenced(test::kReluKernel)}});
  ASSERT_EQ(replay(spec, "--optimise", output), 0) << output;
  const json m = manifest();
  EXPECT_EQ(m["search"]["accepted_from"], "relu/o1/p0/i0");
  EXPECT_EQ(m["search"]["idea"], "one store an element, not one a batch item");
  EXPECT_GT(m["search"]["speedup_over_first_correct"].get<double>(), 1.2);
  EXPECT_EQ(read_file(dir_.path() / "generated" / "relu" / "kernel.comp"), test::kReluKernel);
}

// --- regenerating past a current kernel (generator/include/kernelgen/selection/incumbent.hpp) ------------------

class RegenerateOp : public OptimiseOp {
 protected:
  // relu searched with two samples in one round, replying these two kernels.
  fs::path two_samples(const std::string& first, const std::string& second) {
    const fs::path spec = replayed_spec({{"relu/r1/s0", test::fenced(first)}, {"relu/r1/s1", test::fenced(second)}});
    json text = json::parse(read_file(spec));
    text["search"] = {{"samples", 2}, {"rounds", 1}};
    write_file_atomic(spec, text.dump(2));
    return spec;
  }

  std::string checked_in_file(const std::string& name) const {
    return read_file(dir_.path() / "generated" / "relu" / name);
  }

  // The checked-in kernel made `source` (of test::kReluKernel's grid and workgroup), as if chosen on `device`.
  void check_in_as_chosen_on(const std::string& source, const std::string& device) {
    GeneratedKernel kernel{parse_manifest(manifest()), source, compile_glsl(source).spirv};
    kernel.manifest.source_hash = content_hash(kernel.source);
    kernel.manifest.spirv_hash = content_hash(kernel.spirv);
    kernel.manifest.search["chosen_on"] = device;
    kernel.manifest.search.erase("chosen_among");
    write_generated(dir_.path() / "generated" / "relu", kernel);
  }
};

TEST_F(RegenerateOp, PickingTheCheckedInKernelAgainLeavesItsFilesAsTheyWere) {
  const fs::path spec = two_samples(test::kReluKernel, test::kLeakyReluKernel);
  std::string output;
  ASSERT_EQ(replay(spec, "", output), 0) << output;
  const std::string manifest_before = checked_in_file("manifest.json");
  const auto written = fs::last_write_time(dir_.path() / "generated" / "relu" / "manifest.json");

  ASSERT_EQ(replay(spec, "--regenerate", output), 0) << output;
  EXPECT_THAT(output, HasSubstr("picked the checked-in kernel again"));
  EXPECT_EQ(checked_in_file("manifest.json"), manifest_before);
  EXPECT_EQ(fs::last_write_time(dir_.path() / "generated" / "relu" / "manifest.json"), written);
}

TEST_F(RegenerateOp, AManifestWrittenBeforeChosenAmongGainsItAndNothingElseChanges) {
  const fs::path spec = two_samples(test::kReluKernel, test::kLeakyReluKernel);
  std::string output;
  ASSERT_EQ(replay(spec, "", output), 0) << output;
  const std::string recorded = checked_in_file("manifest.json");
  json older = manifest();
  // leaky relu fails relu's validation: the kernel was chosen among one correct candidate.
  EXPECT_EQ(older["search"]["chosen_among"], json::array({kernelgen::content_hash(test::kReluKernel)}));
  older["search"].erase("chosen_among");
  write_file_atomic(dir_.path() / "generated" / "relu" / "manifest.json", older.dump(2) + "\n");
  const fs::path folder = dir_.path() / "generated" / "relu";
  const auto spirv_written = fs::last_write_time(folder / "kernel.spv");
  const auto source_written = fs::last_write_time(folder / "kernel.comp");

  ASSERT_EQ(replay(spec, "--regenerate", output), 0) << output;
  EXPECT_THAT(output, HasSubstr("now records the 1 correct candidates it was chosen among (1 new)"));
  // The field back, byte for byte as the search wrote it, and the kernel's own files untouched.
  EXPECT_EQ(checked_in_file("manifest.json"), recorded);
  EXPECT_EQ(fs::last_write_time(folder / "kernel.spv"), spirv_written);
  EXPECT_EQ(fs::last_write_time(folder / "kernel.comp"), source_written);

  ASSERT_EQ(replay(spec, "--regenerate", output), 0) << output;
  EXPECT_THAT(output, Not(HasSubstr("now records")));
  EXPECT_EQ(checked_in_file("manifest.json"), recorded);
}

TEST_F(RegenerateOp, AReplayOfTheCandidatesItWasChosenAmongKeepsItThoughAnotherIsFasterHere) {
  // The slow kernel checked in, as if chosen among the slow and the fast one on a machine where the slow one won.
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  json m = manifest();
  m["search"]["chosen_among"] = slow_and_fast_hashes();
  write_file_atomic(dir_.path() / "generated" / "relu" / "manifest.json", m.dump(2) + "\n");
  const std::string recorded = checked_in_file("manifest.json");

  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kReluKernel), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("chosen among these 2 correct candidates"), HasSubstr("would pick relu/r1/s1"),
                            Not(HasSubstr("paired timings"))));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kSlowReluKernel);
  EXPECT_EQ(checked_in_file("manifest.json"), recorded);
}

TEST_F(RegenerateOp, AKernelChosenOnAnotherDeviceIsKeptUntilReplaceIsAskedFor) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  json m = manifest();
  m["search"]["chosen_on"] = "NVIDIA H100 80GB HBM3";
  m["search"].erase("chosen_among");
  write_file_atomic(dir_.path() / "generated" / "relu" / "manifest.json", m.dump(2));

  const fs::path spec = two_samples(test::kSlowReluKernel, test::kReluKernel);
  ASSERT_EQ(replay(spec, "--regenerate", output), 0) << output;
  EXPECT_THAT(output, AllOf(HasSubstr("chosen on NVIDIA H100 80GB HBM3"), HasSubstr("would pick relu/r1/s1"),
                            HasSubstr("KERNELGEN_REPLACE=1"), Not(HasSubstr("now records"))));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kSlowReluKernel);
  // This device's search says nothing of what another device chose among.
  EXPECT_FALSE(manifest()["search"].contains("chosen_among"));

  ASSERT_EQ(build_op(spec, "--regenerate --set KERNELGEN_MODEL=replay --cassette-dir " +
                               quoted(dir_.path() / "cassettes"),
                     output, "KERNELGEN_REPLACE=1"),
            0)
      << output;
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kReluKernel);
  EXPECT_EQ(manifest()["search"]["accepted_from"], "relu/r1/s1");
  EXPECT_FALSE(manifest()["search"]["chosen_on"].get<std::string>().empty());
}

// A checked-in kernel that fails this search's validation is replaced, whoever chose it: leaky relu, as if an H100
// had chosen it, whether the search validates it as one of its candidates or the build step validates it after.
// Its twins: AKernelChosenOnAnotherDeviceIsKeptUntilReplaceIsAskedFor (among the candidates, passing) and
// AKernelChosenOnAnotherDeviceThatTheSearchDidNotReachIsKeptWhenItPassesHere.
TEST_F(RegenerateOp, AKernelChosenOnAnotherDeviceThatFailsAsOneOfThisSearchsCandidatesIsReplaced) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  check_in_as_chosen_on(test::kLeakyReluKernel, "NVIDIA H100 80GB HBM3");

  ASSERT_EQ(replay(two_samples(test::kLeakyReluKernel, test::kSlowReluKernel), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("the checked-in kernel fails this search's validation (INCORRECT_NUMERICAL: "),
                            HasSubstr("checking in relu/r1/s1"), Not(HasSubstr("kept the checked-in kernel"))));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kSlowReluKernel);
}

TEST_F(RegenerateOp, AKernelChosenOnAnotherDeviceThatTheSearchDidNotReachIsReplacedWhenItFailsHere) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  check_in_as_chosen_on(test::kLeakyReluKernel, "NVIDIA H100 80GB HBM3");

  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kReplyWithoutCode), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("the checked-in kernel, chosen on NVIDIA H100 80GB HBM3, is none of this "
                                      "search's candidates; validated here: INCORRECT_NUMERICAL"),
                            HasSubstr("the checked-in kernel fails this search's validation (INCORRECT_NUMERICAL: "),
                            HasSubstr("checking in relu/r1/s0")));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kSlowReluKernel);
}

TEST_F(RegenerateOp, AKernelChosenOnAnotherDeviceThatTheSearchDidNotReachIsKeptWhenItPassesHere) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  check_in_as_chosen_on(test::kReluKernel, "NVIDIA H100 80GB HBM3");
  const std::string recorded = checked_in_file("manifest.json");

  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kReplyWithoutCode), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("is none of this search's candidates; validated here: PASSED"),
                            HasSubstr("kept the checked-in kernel, chosen on NVIDIA H100 80GB HBM3 and passed here"),
                            HasSubstr("would pick relu/r1/s0")));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kReluKernel);
  EXPECT_EQ(checked_in_file("manifest.json"), recorded);
}

TEST_F(RegenerateOp, ANewCandidateThatDoesNotWinJoinsWhatTheKeptKernelWasChosenAmong) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  ASSERT_EQ(manifest()["search"]["chosen_among"].size(), 1u);

  // The slow kernel is new and correct; the search picks the checked-in one again.
  ASSERT_EQ(replay(two_samples(test::kReluKernel, test::kSlowReluKernel), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("picked the checked-in kernel again"),
                            HasSubstr("now records the 2 correct candidates it was chosen among (1 new)")));
  EXPECT_EQ(manifest()["search"]["chosen_among"], slow_and_fast_hashes());
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kReluKernel);
}

TEST_F(RegenerateOp, AFasterKernelOnTheSameDeviceReplacesItOnceTimedBesideItInEveryPair) {
  std::string output;
  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kLeakyReluKernel), "", output), 0) << output;
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kSlowReluKernel);

  ASSERT_EQ(replay(two_samples(test::kSlowReluKernel, test::kReluKernel), "--regenerate", output), 0)
      << output;
  EXPECT_THAT(output, AllOf(HasSubstr("paired timings"), HasSubstr("faster in every pair")));
  EXPECT_EQ(checked_in_file("kernel.comp"), test::kReluKernel);
}

TEST_F(RegenerateOp, ARejectedDeclaredKernelIsListedWithItsReasonAndTheCommandThatReproducesIt) {
  const fs::path kernel = dir_.path() / "my_relu.comp";
  write_file_atomic(kernel, test::kLeakyReluKernel);
  fs::path spec = spec_with(json::object());
  json text = json::parse(read_file(spec));
  text["kernel"] = kernel.string();
  write_file_atomic(spec, text.dump(2));
  std::string output;
  ASSERT_EQ(build_op(spec, "", output), 1) << output;
  EXPECT_THAT(output, AllOf(HasSubstr(kernel.string() + ": INCORRECT_NUMERICAL: "),
                            HasSubstr("reproduce: KERNELGEN_SEED="),
                            HasSubstr("kernelgen validate --spec " + spec.string() + " --kernel " + kernel.string()),
                            HasSubstr("Or fix the declared KERNEL " + kernel.string()),
                            Not(HasSubstr("declare a hand-written KERNEL"))));
}

}  // namespace
}  // namespace kernelgen
