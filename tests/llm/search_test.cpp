// run_search on the catalog's relu with the fake OpenAI server standing in for the model: rounds, feedback,
// records, budgets, truncated replies and concurrent samples, validated on the Vulkan device.
#include "kernelgen/search/search.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>

#include "fake_llm_server.hpp"
#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/reference_module.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"
#include "kernelgen/validation/cases.hpp"
#include "relu_replies.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using test::fenced;
using test::kLeakyReluKernel;
using test::kReluKernel;
using test::kReplyWithoutCode;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKey = "sk-test-search-SECRET-9876543210";

const test::FakeUsage kUsage{1000, 200, 0};

class Search : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    device_ = std::make_unique<DeviceInfo>(Device::describe_selected());
  }
  static void TearDownTestSuite() { device_.reset(); }

  void SetUp() override {
    spec_ = load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json");
    reference_text_ = read_file(spec_.reference_path);
    hash_ = spec_hash(spec_, reference_text_, prompt_template_version());

    llm::ProviderSettings provider;
    provider.provider = "openai";
    provider.model = "gpt-4o-mini";
    provider.api_key = kKey;
    provider.base_url = server_.base_url();
    provider.total_timeout_s = 30;
    config_.provider = provider;
    config_.client.sleep = [](double) {};
    config_.client.log = [](const std::string&) {};
    config_.samples = 2;
    config_.rounds = 3;
    config_.log_dir = log_.path();
    config_.prices = shipped_prices();
    config_.base_seed = base_seed_from_environment();
    config_.timing_runs = 3;
    config_.isolation.tool = KERNELGEN_TEST_TOOL;
    config_.isolation.reference_module =
        default_reference_module(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json");
  }

  SearchOutcome search() {
    return run_search(*device_, spec_, reference_text_, hash_, {}, config_);
  }

  std::vector<json> records() const { return load_records(log_.path()); }

  std::vector<std::string> record_files(const std::string& prefix) const {
    std::vector<std::string> names;
    for (const auto& file : std::filesystem::directory_iterator(log_.path()))
      if (file.path().filename().string().rfind(prefix, 0) == 0)
        names.push_back(file.path().filename().string());
    return names;
  }

  void expect_key_in_no_record() const {
    for (const auto& file : std::filesystem::directory_iterator(log_.path()))
      EXPECT_THAT(read_file(file.path()), Not(HasSubstr(kKey))) << file.path();
  }

  static std::unique_ptr<DeviceInfo> device_;
  test::FakeLlmServer server_;
  test::ScratchDir log_;
  OpSpec spec_;
  std::string reference_text_;
  std::string hash_;
  SearchConfig config_;
};

std::unique_ptr<DeviceInfo> Search::device_;

TEST_F(Search, RejectsRoundOneFeedsItBackAndAcceptsRoundTwo) {
  server_.enqueue(test::openai_reply(kReplyWithoutCode, kUsage));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));
  server_.enqueue(test::openai_reply(kReplyWithoutCode, kUsage));

  const SearchOutcome outcome = search();

  ASSERT_TRUE(outcome.best.has_value()) << outcome.stop_reason;
  EXPECT_EQ(outcome.rounds_run, 2);
  EXPECT_EQ(outcome.candidates, 4);
  EXPECT_EQ(outcome.best->round, 2);
  EXPECT_EQ(outcome.best->glsl, kReluKernel);
  EXPECT_EQ(outcome.best->author, "openai/gpt-4o-mini");
  EXPECT_EQ(outcome.best->model, "openai/gpt-4o-mini");
  EXPECT_FALSE(outcome.best->parent.empty());
  EXPECT_FALSE(outcome.best_binary.spirv.empty());
  EXPECT_THAT(outcome.stop_reason, HasSubstr("round 2"));
  EXPECT_EQ(outcome.totals.accepted, 1);
  EXPECT_EQ(outcome.totals.rejected.at("COMPILE_ERROR"), 2);
  EXPECT_EQ(outcome.totals.rejected.at("INCORRECT_NUMERICAL"), 1);
  EXPECT_EQ(outcome.totals.tokens, 4 * 1200);
  EXPECT_NEAR(outcome.totals.cost_usd, 4 * (1000 * 0.15 + 200 * 0.60) / 1e6, 1e-12);
  EXPECT_FALSE(outcome.totals.cost_unknown);
  EXPECT_EQ(server_.request_count(), 4u);
}

TEST_F(Search, TheCorrectSourcesAreEachCorrectCandidatesHashOnceAndNoRejectedOnes) {
  config_.samples = 3;
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));

  const SearchOutcome outcome = search();

  ASSERT_TRUE(outcome.best.has_value()) << outcome.stop_reason;
  EXPECT_EQ(outcome.candidates, 3);
  EXPECT_EQ(outcome.correct_sources, std::vector<std::string>{content_hash(kReluKernel)});
}

TEST_F(Search, WritesARecordPerCandidateWithItsVerdict) {
  server_.enqueue(test::openai_reply(kReplyWithoutCode, kUsage));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));
  server_.enqueue(test::openai_reply(kReplyWithoutCode, kUsage));
  search();

  EXPECT_EQ(record_files("c_").size(), 1u);
  EXPECT_EQ(record_files("r_").size(), 3u);
  std::multiset<std::string> statuses;
  for (const json& record : records()) statuses.insert(record["verdict_status"].get<std::string>());
  EXPECT_EQ(statuses,
            (std::multiset<std::string>{"COMPILE_ERROR", "COMPILE_ERROR", "INCORRECT_NUMERICAL", "PASSED"}));
  for (const std::string& name : record_files("c_")) EXPECT_THAT(name, HasSubstr(spec_slug(spec_)));
}

TEST_F(Search, RecordHoldsPromptCompletionUsageAndCost) {
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  config_.rounds = 1;
  search();

  const auto all = records();
  ASSERT_EQ(all.size(), 2u);
  const json& record = all[0];
  EXPECT_EQ(record["op"], "relu");
  EXPECT_EQ(record["status"], "rejected");
  EXPECT_EQ(record["verdict_status"], "INCORRECT_NUMERICAL");
  EXPECT_FALSE(record["verdict"]["reason"].get<std::string>().empty());
  EXPECT_EQ(record["model"], "openai/gpt-4o-mini");
  EXPECT_EQ(record["author"], "openai/gpt-4o-mini");
  EXPECT_EQ(record["round"], 1);
  EXPECT_EQ(record["spec_hash"], hash_);
  EXPECT_THAT(record["prompt"]["system"].get<std::string>(), Not(::testing::IsEmpty()));
  EXPECT_THAT(record["prompt"]["user"].get<std::string>(), AllOf(HasSubstr("relu"), HasSubstr("cwiseMax")));
  EXPECT_EQ(record["completion"]["text"], fenced(kLeakyReluKernel));
  EXPECT_EQ(record["completion"]["finish_reason"], "stop");
  EXPECT_EQ(record["completion"]["raw"]["id"], "chatcmpl-fake");
  EXPECT_EQ(record["glsl"], kLeakyReluKernel);
  EXPECT_FALSE(record["spirv_hash"].get<std::string>().empty());
  EXPECT_EQ(record["usage"]["prompt_tokens"], 1000);
  EXPECT_EQ(record["usage"]["completion_tokens"], 200);
  ASSERT_TRUE(record["cost_usd"].is_number()) << record["cost_usd"];
  EXPECT_NEAR(record["cost_usd"].get<double>(), (1000 * 0.15 + 200 * 0.60) / 1e6, 1e-12);
  expect_key_in_no_record();
}

TEST_F(Search, RoundTwoPromptCarriesRoundOneVerdicts) {
  server_.enqueue(test::openai_reply(kReplyWithoutCode, kUsage));
  server_.enqueue(test::openai_reply(fenced(kLeakyReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));
  server_.enqueue(test::openai_reply(fenced(kReluKernel), kUsage));
  search();

  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_THAT(requests[i].json()["messages"][1]["content"].get<std::string>(),
                Not(HasSubstr("Earlier attempts")));
  for (size_t i = 2; i < 4; ++i) {
    const std::string user = requests[i].json()["messages"][1]["content"].get<std::string>();
    EXPECT_THAT(user,
                AllOf(HasSubstr("Earlier attempts that were rejected"), HasSubstr("no fenced code block"),
                      HasSubstr("INCORRECT_NUMERICAL"), HasSubstr("0.01 * x[i]")));
  }
}

TEST_F(Search, BudgetStopsTheSearchBeforeTheNextRound) {
  config_.prices = {{"openai/gpt-4o-mini", {1000.0, 1000.0}}};  // $1.20 a reply
  config_.budget_usd = 2.0;
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(kReplyWithoutCode, kUsage); });
  const SearchOutcome outcome = search();
  EXPECT_FALSE(outcome.best.has_value());
  EXPECT_EQ(outcome.rounds_run, 1);
  EXPECT_THAT(outcome.stop_reason, AllOf(HasSubstr("budget"), HasSubstr("2.00")));
  EXPECT_EQ(server_.request_count(), 2u);
  EXPECT_NEAR(outcome.totals.cost_usd, 2.4, 1e-9);
}

TEST_F(Search, TokenBudgetStopsTheSearchBeforeTheNextRound) {
  config_.token_budget = 2000;
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(kReplyWithoutCode, kUsage); });
  const SearchOutcome outcome = search();
  EXPECT_EQ(outcome.rounds_run, 1);
  EXPECT_THAT(outcome.stop_reason, HasSubstr("token budget"));
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_F(Search, UnknownPriceMakesTheCostUnknownNotZero) {
  config_.prices = {};
  config_.rounds = 1;
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(kReplyWithoutCode, kUsage); });
  const SearchOutcome outcome = search();
  EXPECT_TRUE(outcome.totals.cost_unknown);
  for (const json& record : records()) EXPECT_EQ(record["cost_usd"], "unknown");
}

TEST_F(Search, TruncatedCompletionIsARejectionNotACrash) {
  const std::string cut =
      "```glsl\n#version 450\n// kernelgen: dispatch (batch * 2048 + 255) / 256 1 1\n"
      "layout(local_size_x = 256) in;\nvoid ma";
  server_.set_responder(
      [&](const test::ReceivedRequest&, size_t) { return test::openai_reply(cut, kUsage, "length"); });
  config_.rounds = 1;
  const SearchOutcome outcome = search();
  EXPECT_FALSE(outcome.best.has_value());
  EXPECT_THAT(outcome.stop_reason, HasSubstr("no correct kernel"));
  const auto all = records();
  ASSERT_EQ(all.size(), 2u);
  for (const json& record : all) {
    EXPECT_EQ(record["verdict_status"], "COMPILE_ERROR");
    EXPECT_THAT(record["verdict"]["reason"].get<std::string>(),
                AllOf(HasSubstr("not closed"), HasSubstr("finish_reason: length")));
    EXPECT_EQ(record["completion"]["finish_reason"], "length");
  }
}

TEST_F(Search, EveryRequestFailingEndsTheSearchWithTheProvidersError) {
  server_.set_responder([](const test::ReceivedRequest& request, size_t) {
    return test::error_reply(401, "Incorrect API key provided: " + request.header("authorization"));
  });
  const SearchOutcome outcome = search();
  EXPECT_FALSE(outcome.best.has_value());
  EXPECT_EQ(outcome.rounds_run, 1);
  EXPECT_THAT(outcome.stop_reason,
              AllOf(HasSubstr("every request of round 1 failed"), HasSubstr("401"), Not(HasSubstr(kKey))));
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_F(Search, SamplesAreRequestedConcurrently) {
  constexpr int kSamples = 4;
  constexpr double kLatency = 0.3;
  server_.set_responder([](const test::ReceivedRequest&, size_t) {
    test::ScriptedResponse reply = test::openai_reply(kReplyWithoutCode, kUsage);
    reply.delay_s = kLatency;
    return reply;
  });
  config_.samples = kSamples;
  config_.rounds = 1;
  const auto start = std::chrono::steady_clock::now();
  search();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(server_.request_count(), static_cast<size_t>(kSamples));
  EXPECT_EQ(server_.max_in_flight(), kSamples);
  // Below the serial requests' 1.2 s with room for the candidates' handling: under ASan with a test beside it, 0.80 s.
  EXPECT_LT(seconds, 0.9 * kSamples * kLatency);
}

TEST_F(Search, ProgressIsReportedAfterEachCandidate) {
  server_.set_responder(
      [](const test::ReceivedRequest&, size_t) { return test::openai_reply(kReplyWithoutCode, kUsage); });
  config_.rounds = 1;
  std::vector<std::string> lines;
  config_.on_progress = [&](const SearchProgress& progress) { lines.push_back(describe_progress(progress)); };
  search();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines.back(), AllOf(HasSubstr("relu round 1/1"), HasSubstr("2/2 candidates"),
                                  HasSubstr("COMPILE_ERROR 2"), HasSubstr("2400 tokens")));
}

}  // namespace
}  // namespace kernelgen
