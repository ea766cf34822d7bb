// The optimisation rounds of run_search on the catalog's relu, replayed from a cassette written here: a slow
// correct kernel first (each element stored once per batch item), then brainstorm and implement calls that
// find a fast one, a wrong "faster" one that validation rejects, a malformed list of ideas and a missing
// answer, each recorded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fake_llm_server.hpp"
#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/reference_module.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/llm/cassette.hpp"
#include "kernelgen/llm/settings.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/search/search.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "relu_replies.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using test::fenced;
using ::testing::HasSubstr;

const std::string kFastIdea = "Store each element once, not once per batch item, in workgroups of 32.";
const std::string kWrongIdea = "Skip the comparison for positive values by scaling with 0.01.";

json entry(const std::string& key, const std::string& text) {
  return {{"key", key}, {"author", "hand-written"}, {"body", test::openai_completion_body(text)}};
}

std::string ideas_reply(const std::vector<std::string>& ideas) {
  json list = json::array();
  for (const auto& idea : ideas) list.push_back({{"idea", idea}});
  return "Two ideas:\n\n```json\n" + list.dump(2) + "\n```\n";
}

class Optimisation : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json");
    // 131072 elements: long enough runs that lavapipe's noise stays small, short enough for a sanitizer build.
    // Lavapipe times at CPU_BENCH_DIMS (the catalog's relu declares batch=1024 there), a GPU at BENCH_DIMS.
    spec_.dims.front().bench = 64;
    spec_.dims.front().cpu_bench = 64;
    // Validated at batch 1 and 2 besides the sizes the kernels' workgroups add: the slow kernel's cost grows
    // with the square of the batch, and the catalog's DIMS go up to 16.
    spec_.dims.front().sizes = {1, 2};
    reference_text_ = read_file(spec_.reference_path);
    hash_ = spec_hash(spec_, reference_text_, prompt_template_version());
    config_.samples = 2;
    config_.rounds = 2;
    config_.opt_rounds = 4;
    config_.log_dir = log_.path() / "log";
    std::filesystem::create_directories(config_.log_dir);
    config_.base_seed = base_seed_from_environment();
    config_.timing_runs = 15;
    config_.isolation.tool = KERNELGEN_TEST_TOOL;
    config_.isolation.reference_module =
        default_reference_module(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json");
    config_.peaks = DevicePeaks{"test", 1.0, 1.0};
  }

  SearchOutcome search(const std::vector<json>& entries) {
    const auto cassette = log_.path() / "relu.json";
    write_file_atomic(cassette, json{{"kernelgen_cassette", 1}, {"entries", entries}}.dump());
    config_.provider = llm::resolve_settings("replay/" + cassette.string(), {});
    config_.client.transport = llm::replay_transport(cassette);
    config_.client.sleep = [](double) {};
    config_.client.log = [](const std::string&) {};
    return run_search(Device::describe_selected(), spec_, reference_text_, hash_, {}, config_);
  }

  std::vector<json> records(bool with_ideas = false) const { return load_records(config_.log_dir, with_ideas); }

  test::ScratchDir log_;
  OpSpec spec_;
  std::string reference_text_;
  std::string hash_;
  SearchConfig config_;
};

TEST_F(Optimisation, FindsAFasterKernelRejectsAWrongOneAndStopsAfterTwoQuietRounds) {
  const SearchOutcome outcome = search(
      {entry("relu/r1/s0", fenced(test::kSlowReluKernel)), entry("relu/r1/s1", test::kReplyWithoutCode),
       entry("relu/o1/p0/ideas", ideas_reply({kFastIdea, kWrongIdea})),
       entry("relu/o1/p0/i0", fenced(test::kReluKernel)),
       entry("relu/o1/p0/i1", fenced(test::kLeakyReluKernel)),
       entry("relu/o2/p0/ideas", "I would vectorise it.")});  // no list; o3 has no answer at all

  ASSERT_TRUE(outcome.best && outcome.first_correct) << outcome.stop_reason;
  EXPECT_EQ(outcome.first_correct->origin, "relu/r1/s0");
  EXPECT_EQ(outcome.best->origin, "relu/o1/p0/i0");
  EXPECT_EQ(outcome.best->glsl, test::kReluKernel);
  EXPECT_EQ(outcome.best->idea, kFastIdea);
  EXPECT_EQ(outcome.best->parent, outcome.first_correct->uuid);
  EXPECT_EQ(outcome.best->optimisation_round, 1);
  EXPECT_EQ(outcome.best->round, 2);  // after the one correction round
  ASSERT_TRUE(outcome.best->speedup_over_first_correct && outcome.best->speedup_over_parent);
  EXPECT_GT(*outcome.best->speedup_over_first_correct, 1.2);
  EXPECT_DOUBLE_EQ(*outcome.best->speedup_over_first_correct, *outcome.best->speedup_over_parent);
  ASSERT_TRUE(outcome.best->verdict.timing && outcome.best->verdict.timing->fraction_of_peak);
  EXPECT_GT(*outcome.best->verdict.timing->fraction_of_peak, 0);
  EXPECT_EQ(outcome.optimisation_rounds_run, 3);
  EXPECT_THAT(outcome.stop_reason, HasSubstr("two rounds in a row without a speed-up"));

  int optimisations = 0, rejected = 0;
  for (const json& record : records()) {
    if (record["optimisation_round"] == 0) continue;
    ++optimisations;
    EXPECT_TRUE(record["idea"].is_string()) << record["file"];
    EXPECT_EQ(record["parent"], outcome.first_correct->uuid) << record["file"];
    if (record["status"] == "rejected") {
      ++rejected;
      EXPECT_EQ(record["idea"], kWrongIdea);
      EXPECT_EQ(record["verdict_status"], "INCORRECT_NUMERICAL");
    }
  }
  EXPECT_EQ(optimisations, 2);
  EXPECT_EQ(rejected, 1);

  std::vector<json> brainstorms;
  for (const json& record : records(true))
    if (record.value("kind", "") == "ideas") brainstorms.push_back(record);
  ASSERT_EQ(brainstorms.size(), 3u);
  std::sort(brainstorms.begin(), brainstorms.end(),
            [](const json& a, const json& b) { return a["origin"] < b["origin"]; });
  EXPECT_EQ(brainstorms[0]["ideas"], json({kFastIdea, kWrongIdea}));
  EXPECT_TRUE(brainstorms[0]["error"].is_null());
  EXPECT_THAT(brainstorms[1]["error"].get<std::string>(), HasSubstr("no ```json block"));
  EXPECT_THAT(brainstorms[2]["error"].get<std::string>(), HasSubstr("request failed"));
  // Round 2 is told what round 1 tried and how it went, from the new best kernel.
  const std::string second = brainstorms[1]["prompt"]["user"];
  EXPECT_THAT(second, HasSubstr(kFastIdea));
  EXPECT_THAT(second, HasSubstr("rejected, INCORRECT_NUMERICAL"));
  EXPECT_THAT(second, HasSubstr(test::kReluKernel));
  EXPECT_THAT(brainstorms[0]["prompt"]["user"].get<std::string>(), HasSubstr("% of the device's peak"));
  EXPECT_EQ(outcome.totals.rejected.at("NO_IDEAS"), 2);
}

TEST_F(Optimisation, ImplementPromptCarriesTheParentAndTheIdea) {
  config_.opt_rounds = 1;
  const SearchOutcome outcome = search({entry("relu/r1/s0", fenced(test::kSlowReluKernel)),
                                        entry("relu/r1/s1", fenced(test::kSlowReluKernel)),
                                        entry("relu/o1/p0/ideas", ideas_reply({kFastIdea})),
                                        entry("relu/o1/p0/i0", fenced(test::kReluKernel))});
  ASSERT_TRUE(outcome.best) << outcome.stop_reason;
  for (const json& record : records()) {
    if (record["optimisation_round"] != 1) continue;
    const std::string user = record["prompt"]["user"];
    EXPECT_THAT(user, HasSubstr(kFastIdea));
    EXPECT_THAT(user, HasSubstr("## The kernel to make faster"));
    EXPECT_THAT(user, HasSubstr("kernelgen: dispatch batch * 256 1 1"));  // the slow parent
    EXPECT_THAT(user, HasSubstr("Reply with the complete shader"));
  }
  EXPECT_EQ(outcome.optimisation_rounds_run, 1);
  EXPECT_THAT(outcome.stop_reason, HasSubstr("1 optimisation round run"));
}

TEST_F(Optimisation, BeamKeepsTheFastestParentsForTheNextRound) {
  config_.opt_rounds = 1;
  config_.beam = 2;
  search({entry("relu/r1/s0", fenced(test::kSlowReluKernel)), entry("relu/r1/s1", fenced(test::kReluKernel)),
          entry("relu/o1/p0/ideas", ideas_reply({kWrongIdea})),
          entry("relu/o1/p1/ideas", ideas_reply({kWrongIdea})),
          entry("relu/o1/p0/i0", fenced(test::kLeakyReluKernel)),
          entry("relu/o1/p1/i0", fenced(test::kLeakyReluKernel))});
  std::set<std::string> parents, origins;
  for (const json& record : records(true))
    if (record.value("kind", "") == "ideas") {
      parents.insert(record["parent"].get<std::string>());
      origins.insert(record["origin"].get<std::string>());
    }
  EXPECT_EQ(parents.size(), 2u);
  EXPECT_EQ(origins, (std::set<std::string>{"relu/o1/p0/ideas", "relu/o1/p1/ideas"}));
}

TEST_F(Optimisation, AKernelThatCannotBeTimedIsNotOptimised) {
  config_.timing_runs = 0;
  const SearchOutcome outcome = search({entry("relu/r1/s0", fenced(test::kSlowReluKernel)),
                                        entry("relu/r1/s1", fenced(test::kSlowReluKernel))});
  ASSERT_TRUE(outcome.best);
  EXPECT_EQ(outcome.optimisation_rounds_run, 0);
  EXPECT_THAT(outcome.stop_reason, HasSubstr("could not be timed"));
}

TEST_F(Optimisation, WithoutOptimisationRoundsTheSearchEndsAtTheFirstCorrectRound) {
  config_.opt_rounds = 0;
  const SearchOutcome outcome = search({entry("relu/r1/s0", fenced(test::kSlowReluKernel)),
                                        entry("relu/r1/s1", test::kReplyWithoutCode),
                                        entry("relu/o1/p0/ideas", ideas_reply({kFastIdea})),
                                        entry("relu/o1/p0/i0", fenced(test::kReluKernel))});
  ASSERT_TRUE(outcome.best);
  EXPECT_EQ(outcome.optimisation_rounds_run, 0);
  EXPECT_EQ(outcome.stop_reason, "round 1 found a correct kernel");
  EXPECT_EQ(outcome.best->origin, "relu/r1/s0");
}

}  // namespace
}  // namespace kernelgen
