// `kernelgen report` and `kernelgen show` over a candidate log written the way the search writes it: correction
// rounds, an optimisation round with its brainstorms (i_ records), and the lineage of an optimised kernel.
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/report/log_commands.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/report/report_html.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/record.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kModel = "openai/gpt-test";
constexpr const char* kSpecHash = "0123456789abcdef0123";

OpSpec relu_spec() {
  return parse_op_spec(json::parse(R"({"name": "relu",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4, 8]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}]})"));
}

Timing timing_of(double median_us, std::optional<double> fraction = std::nullopt) {
  Timing timing;
  timing.device = "llvmpipe";
  timing.runs = 31;
  timing.median_ns = median_us * 1e3;
  timing.min_ns = timing.median_ns * 0.95;
  timing.p25_ns = timing.median_ns * 0.98;
  timing.p75_ns = timing.median_ns * 1.02;
  timing.dims = "batch=64";
  timing.gbytes_per_second = 160.0 / median_us;  // 160 KB and 80 kFLOP per call
  timing.gflops = 80.0 / median_us;
  timing.fraction_of_peak = fraction;
  return timing;
}

// The parts of a record the report and show read; the rest as the search fills it.
struct Candidate {
  std::string timestamp;
  int round = 1;
  int sample = 0;
  bool correct = true;
  std::optional<double> median_us;
  std::optional<double> fraction;
  std::string parent;
  int optimisation_round = 0;
  std::string idea;
  std::optional<double> speedup_over_parent;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;
  std::string op = "relu";
  std::string model = kModel;
};

CandidateRecord make_record(const Candidate& c) {
  CandidateRecord r;
  r.uuid = new_uuid();
  r.timestamp = c.timestamp;
  r.op = c.op;
  r.spec = relu_spec();
  r.spec_hash = kSpecHash;
  r.model = c.model;
  r.author = c.model;
  r.round = c.round;
  r.sample = c.sample;
  r.origin = "relu/r" + std::to_string(c.round) + "/s" + std::to_string(c.sample);
  r.parent = c.parent;
  r.optimisation_round = c.optimisation_round;
  r.idea = c.idea;
  r.speedup_over_parent = c.speedup_over_parent;
  r.completion.text = "```glsl\n// candidate " + r.uuid + "\n```";
  r.completion.author = c.model;
  r.completion.usage.prompt_tokens = c.prompt_tokens;
  r.completion.usage.completion_tokens = c.completion_tokens;
  r.cost_usd = c.cost;
  r.glsl = "// candidate " + r.uuid;
  r.verdict.device = "llvmpipe";
  if (c.correct) {
    r.verdict.status = Status::PASSED;
    if (c.median_us) r.verdict.timing = timing_of(*c.median_us, c.fraction);
  } else {
    r.verdict.status = Status::INCORRECT_NUMERICAL;
    r.verdict.reason = "y[3] is 0, the reference 1.5";
  }
  return r;
}

IdeasRecord make_ideas(const std::string& timestamp, int optimisation_round, const std::string& parent,
                       const std::string& error, int64_t prompt_tokens, int64_t completion_tokens, double cost) {
  IdeasRecord r;
  r.uuid = new_uuid();
  r.timestamp = timestamp;
  r.op = "relu";
  r.spec_hash = kSpecHash;
  r.model = kModel;
  r.optimisation_round = optimisation_round;
  r.origin = "relu/o" + std::to_string(optimisation_round) + "/p0/ideas";
  r.parent = parent;
  r.completion.text = error.empty() ? "```json\n[\"vectorise\", \"unroll\"]\n```" : "no list, sorry " + r.uuid;
  r.completion.author = kModel;
  r.completion.usage.prompt_tokens = prompt_tokens;
  r.completion.usage.completion_tokens = completion_tokens;
  r.cost_usd = cost;
  if (error.empty()) r.ideas = {"vectorise", "unroll"};
  r.error = error;
  return r;
}

// Two correction rounds (a rejection, then two correct kernels of 100 and 80 us) and one optimisation round with
// a beam of two: the 80 us kernel's brainstorm gave ideas whose kernels take 40 and 60 us, the 100 us kernel's
// brainstorm failed.
class CandidateLog : public ::testing::Test {
 protected:
  void SetUp() override {
    rejected = make_record({.timestamp = "2025-01-01T00:00:01.000Z", .round = 1, .sample = 0, .correct = false,
                            .prompt_tokens = 100, .completion_tokens = 10, .cost = 0.001});
    slow = make_record({.timestamp = "2025-01-01T00:00:02.000Z", .round = 2, .sample = 0, .median_us = 100.0,
                        .fraction = 0.2, .parent = rejected.uuid, .prompt_tokens = 200, .completion_tokens = 20,
                        .cost = 0.002});
    first = make_record({.timestamp = "2025-01-01T00:00:03.000Z", .round = 2, .sample = 1, .median_us = 80.0,
                         .parent = rejected.uuid, .prompt_tokens = 300, .completion_tokens = 30, .cost = 0.003});
    ideas = make_ideas("2025-01-01T00:00:04.000Z", 1, first.uuid, "", 1000, 100, 0.01);
    failed_ideas = make_ideas("2025-01-01T00:00:05.000Z", 1, slow.uuid, "the answer has no ```json block", 2000,
                              200, 0.02);
    best = make_record({.timestamp = "2025-01-01T00:00:06.000Z", .round = 3, .sample = 0, .median_us = 40.0,
                        .fraction = 0.5, .parent = first.uuid, .optimisation_round = 1, .idea = "vectorise the loads",
                        .speedup_over_parent = 2.0, .prompt_tokens = 400, .completion_tokens = 40, .cost = 0.004});
    other = make_record({.timestamp = "2025-01-01T00:00:07.000Z", .round = 3, .sample = 1, .median_us = 60.0,
                         .parent = first.uuid, .optimisation_round = 1, .idea = "unroll",
                         .speedup_over_parent = 80.0 / 60.0, .prompt_tokens = 500, .completion_tokens = 50,
                         .cost = 0.005});
    for (const CandidateRecord* r : {&rejected, &slow, &first, &best, &other}) write_record(dir.path(), *r);
    write_ideas_record(dir.path(), ideas);
    write_ideas_record(dir.path(), failed_ideas);
  }

  json only_row() {
    const json summary = report_summary(dir.path());
    EXPECT_EQ(summary.size(), 1u) << summary.dump(2);
    return summary.empty() ? json::object() : summary[0];
  }

  test::ScratchDir dir;
  CandidateRecord rejected, slow, first, best, other;
  IdeasRecord ideas, failed_ideas;
};

TEST_F(CandidateLog, TheRecordsAreNamedAsTheSearchNamesThem) {
  EXPECT_EQ(rejected.file_name().substr(0, 2), "r_");
  EXPECT_EQ(best.file_name().substr(0, 2), "c_");
  EXPECT_EQ(ideas.file_name().substr(0, 2), "i_");
  EXPECT_TRUE(fs::exists(dir.path() / best.file_name()));
  EXPECT_TRUE(fs::exists(dir.path() / failed_ideas.file_name()));
}

TEST_F(CandidateLog, SummaryCountsCandidatesButNotBrainstorms) {
  const json row = only_row();
  EXPECT_EQ(row["op"], "relu");
  EXPECT_EQ(row["model"], kModel);
  EXPECT_EQ(row["candidates"], 5);
  EXPECT_EQ(row["accepted"], 4);
  EXPECT_EQ(row["brainstorms"], 2);
  EXPECT_EQ(row["failed_brainstorms"], 1);
}

TEST_F(CandidateLog, SummaryCountsCorrectionAndOptimisationRounds) {
  const json row = only_row();
  EXPECT_EQ(row["rounds"], 3);
  EXPECT_EQ(row["optimisation_rounds"], 1);
  EXPECT_EQ(row["per_round"], json::parse(R"([
    {"round": 1, "candidates": 1, "correct": 0},
    {"round": 2, "candidates": 2, "correct": 2},
    {"round": 3, "candidates": 2, "correct": 2}])"));
}

TEST_F(CandidateLog, SummaryTimesTheFastestCorrectionKernelAgainstTheFastestOfAll) {
  const json row = only_row();
  // The first correct kernel: the fastest of the correction rounds (80 us), not the first written (100 us).
  EXPECT_DOUBLE_EQ(row["first_correct_us"].get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(row["best_us"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 2.0);
  // The best's own fraction of peak, not the one of the 100 us kernel that was best before it.
  EXPECT_DOUBLE_EQ(row["fraction_of_peak"].get<double>(), 0.5);
  // Every correct kernel's speed-up over the first correct one, in log order: 100, 80, 40, 60 us.
  const json speedups = row["correct_speedups"];
  ASSERT_EQ(speedups.size(), 4u) << speedups.dump();
  EXPECT_DOUBLE_EQ(speedups[0].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(speedups[1].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(speedups[2].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(speedups[3].get<double>(), 80.0 / 60.0);
}

TEST_F(CandidateLog, SummaryNamesTheBestKernelWithItsDeviceAndRates) {
  const json row = only_row();
  EXPECT_EQ(row["status"], "correct");
  EXPECT_EQ(row["best_record"], best.file_name());
  EXPECT_EQ(row["device"], "llvmpipe");
  EXPECT_EQ(row["dims"], "batch=64");
  EXPECT_DOUBLE_EQ(row["gbytes_per_second"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(row["gflops"].get<double>(), 2.0);
}

TEST(Report, AnOpWithoutACorrectKernelIsRejectedAndHasNoBest) {
  const test::ScratchDir dir;
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:01.000Z", .correct = false}));
  const json row = report_summary(dir.path())[0];
  EXPECT_EQ(row["status"], "rejected");
  for (const char* field : {"best_record", "device", "dims", "gbytes_per_second", "gflops", "best_us"})
    EXPECT_TRUE(row[field].is_null()) << field << ": " << row[field];
}

TEST_F(CandidateLog, SummaryAddsTheBrainstormsTokensAndCost) {
  const json row = only_row();
  const int64_t candidates = (100 + 10) + (200 + 20) + (300 + 30) + (400 + 40) + (500 + 50);
  const int64_t brainstorms = (1000 + 100) + (2000 + 200);
  EXPECT_EQ(row["tokens"].get<int64_t>(), candidates + brainstorms);
  ASSERT_TRUE(row["cost_usd"].is_number()) << row["cost_usd"];
  EXPECT_NEAR(row["cost_usd"].get<double>(), 0.015 + 0.03, 1e-12);
}

TEST_F(CandidateLog, SummaryCostIsUnknownWhenOneRecordsPriceIs) {
  CandidateRecord unpriced = make_record({.timestamp = "2025-01-01T00:00:08.000Z", .round = 3, .sample = 2,
                                          .correct = false, .optimisation_round = 1});
  unpriced.cost_usd.reset();
  write_record(dir.path(), unpriced);
  EXPECT_EQ(only_row()["cost_usd"], "unknown");
}

TEST_F(CandidateLog, ReportTableShowsTheSpeedupAndPeak) {
  const std::string text = report_records(dir.path());
  for (const char* column : {"op", "model", "candidates", "accepted", "rounds", "first", "best", "speedup", "peak",
                             "tokens", "cost"})
    EXPECT_THAT(text, HasSubstr(column));
  EXPECT_THAT(text, HasSubstr("relu"));
  EXPECT_THAT(text, HasSubstr("80.0 us"));
  EXPECT_THAT(text, HasSubstr("40.0 us"));
  EXPECT_THAT(text, HasSubstr("2.00x"));
  EXPECT_THAT(text, HasSubstr("50.0%")) << "the best's fraction of peak";
  EXPECT_THAT(text, HasSubstr("80%")) << "4 of 5 candidates accepted";
  EXPECT_THAT(text, HasSubstr("2+1")) << "two correction rounds and one optimisation round";
  EXPECT_THAT(text, HasSubstr("$0.0450"));
}

// A best time beyond the device's measured peaks (above kImpossibleFractionOfPeak) is marked in both reports.
TEST(Report, ATimeBeyondTheDevicesPeaksIsMarkedImpossible) {
  const test::ScratchDir dir;
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:01.000Z", .median_us = 80.0, .fraction = 1.5}));
  write_record(dir.path(),
               make_record({.timestamp = "2025-01-01T00:00:02.000Z", .median_us = 70.0, .fraction = 1.05, .op = "add"}));
  const std::string text = report_records(dir.path());
  EXPECT_THAT(text, HasSubstr("150.0%!"));
  EXPECT_THAT(text, HasSubstr("! relu: its best time is 150% of the device's measured peaks"));
  EXPECT_THAT(text, HasSubstr("105.0% ")) << "within the harness's margin: not marked";
  EXPECT_THAT(text, Not(HasSubstr("! add:")));
  EXPECT_THAT(report_html(dir.path()), HasSubstr("150.0%!"));
  EXPECT_EQ(impossible_speed(1.05, 100, 0, DevicePeaks{"gpu", 100, 1}), std::nullopt);
  EXPECT_THAT(impossible_speed(1.5, 150, 0, DevicePeaks{"gpu", 100, 1}).value_or(""),
              HasSubstr("150.0 GB/s against 100.0"));
}

// On a CPU device the measured peaks are no ceiling (Timing::peaks_bound): the fraction is shown, unmarked.
TEST(Report, ATimeBeyondTheMeasuredPeaksOfACpuDeviceIsNotMarked) {
  const test::ScratchDir dir;
  CandidateRecord on_cpu = make_record({.timestamp = "2025-01-01T00:00:01.000Z", .median_us = 80.0, .fraction = 1.5});
  on_cpu.verdict.timing->peaks_bound = false;
  write_record(dir.path(), on_cpu);
  const std::string text = report_records(dir.path());
  EXPECT_THAT(text, HasSubstr("150.0% "));
  EXPECT_THAT(text, Not(HasSubstr("150.0%!")));
  EXPECT_THAT(text, Not(HasSubstr("! relu:")));
  EXPECT_THAT(report_html(dir.path()), Not(HasSubstr("150.0%!")));
  const auto back = nlohmann::json::parse(nlohmann::json(*on_cpu.verdict.timing).dump()).get<Timing>();
  EXPECT_FALSE(back.peaks_bound);
}

TEST(Report, AKernelValidatedWithLessThanTheFullProtocolSaysWhatWasMissing) {
  const test::ScratchDir dir;
  CandidateRecord reduced = make_record({.timestamp = "2025-01-01T00:00:01.000Z", .median_us = 80.0});
  reduced.verdict.reduced = {"cpu_device"};
  write_record(dir.path(), reduced);
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:02.000Z", .median_us = 70.0, .op = "add"}));
  const std::string text = report_records(dir.path());
  EXPECT_THAT(text, HasSubstr("reduced validation: relu: no CPU Vulkan device (lavapipe: mesa-vulkan-drivers)"));
  EXPECT_THAT(text, Not(HasSubstr("reduced validation: add")));
}

// A row is an op and a model: relu searched by two models is two rows, and still one op of the two in the log.
TEST(Report, AnOpThatTwoModelsSearchedIsTwoRowsButOneOp) {
  const test::ScratchDir dir;
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:01.000Z", .median_us = 80.0}));
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:02.000Z", .median_us = 60.0,
                                        .model = "anthropic/claude-test"}));
  write_record(dir.path(),
               make_record({.timestamp = "2025-01-01T00:00:03.000Z", .correct = false, .op = "softmax"}));
  const json summary = report_summary(dir.path());
  ASSERT_EQ(summary.size(), 3u) << summary.dump(2);
  EXPECT_EQ(summary[0]["op"], "relu");
  EXPECT_EQ(summary[1]["op"], "relu");
  EXPECT_NE(summary[0]["model"], summary[1]["model"]);
  const std::string text = report_records(dir.path());
  EXPECT_THAT(text, HasSubstr("anthropic/claude-test"));
  EXPECT_THAT(text, HasSubstr(kModel));
  const std::string page = report_html(dir.path());
  const size_t counts = page.find("</code>: ");
  ASSERT_NE(counts, std::string::npos) << page;
  EXPECT_EQ(page.substr(counts, page.find(". Written", counts) - counts),
            "</code>: 2 ops, 3 candidates, 2 correct");
}

TEST(Report, AnEmptyLogSaysSo) {
  const test::ScratchDir dir;
  EXPECT_TRUE(report_summary(dir.path()).empty());
  EXPECT_THAT(report_records(dir.path()), HasSubstr("no records in"));
}

TEST(Report, AnOpWithoutOptimisationHasNoSpeedupOrPeak) {
  const test::ScratchDir dir;
  write_record(dir.path(), make_record({.timestamp = "2025-01-01T00:00:01.000Z", .round = 1, .median_us = 12.0}));
  const json summary = report_summary(dir.path());
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_DOUBLE_EQ(summary[0]["first_correct_us"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(summary[0]["best_us"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(summary[0]["speedup"].get<double>(), 1.0);
  EXPECT_TRUE(summary[0]["fraction_of_peak"].is_null());
  EXPECT_EQ(summary[0]["optimisation_rounds"], 0);
  EXPECT_EQ(summary[0]["brainstorms"], 0);
  const std::string text = report_records(dir.path());
  EXPECT_THAT(text, HasSubstr("1.00x"));
  EXPECT_THAT(text, Not(HasSubstr("+"))) << "no optimisation rounds to add";
}

// A second optimisation round whose only brainstorm failed gives no candidates: the correction rounds are still
// two, so the table must read 2+2, not 1+2.
TEST_F(CandidateLog, AFailedBrainstormInALaterOptimisationRoundLeavesTheCorrectionRoundsAlone) {
  write_ideas_record(dir.path(), make_ideas("2025-01-01T00:00:09.000Z", 2, best.uuid, "the list of ideas is empty",
                                            10, 1, 0.0));
  const json row = only_row();
  EXPECT_EQ(row["optimisation_rounds"], 2);
  EXPECT_EQ(row["rounds"].get<int>() - row["optimisation_rounds"].get<int>(), 2) << row.dump(2);
  EXPECT_THAT(report_records(dir.path()), HasSubstr("2+2"));
}

// --- list_summary ------------------------------------------------------------------------------------------

TEST_F(CandidateLog, ListSummaryHasOneObjectPerCandidateOldestFirst) {
  const json rows = list_summary(dir.path(), "", "");
  ASSERT_EQ(rows.size(), 5u) << "the brainstorms are not candidates";
  EXPECT_EQ(rows[0]["file"], rejected.file_name());
  EXPECT_EQ(rows[0]["status"], "rejected");
  EXPECT_EQ(rows[0]["verdict_status"], "INCORRECT_NUMERICAL");
  EXPECT_TRUE(rows[0]["median_us"].is_null());
  EXPECT_EQ(rows[3]["uuid"], best.uuid);
  EXPECT_EQ(rows[3]["optimisation_round"], 1);
  EXPECT_DOUBLE_EQ(rows[3]["median_us"].get<double>(), 40.0);
}

TEST_F(CandidateLog, ListFiltersByStatusAndOp) {
  EXPECT_EQ(list_summary(dir.path(), "rejected", "").size(), 1u);
  EXPECT_EQ(list_summary(dir.path(), "correct", "relu").size(), 4u);
  EXPECT_TRUE(list_summary(dir.path(), "", "softmax").empty());
  EXPECT_THAT(list_records(dir.path(), "", "softmax"), HasSubstr("no records in"));
}

TEST(List, AMissingLogDirectoryIsNamedAsMissing) {
  const test::ScratchDir dir;
  EXPECT_THAT(list_records(dir.path() / "no_such_log", "", ""), HasSubstr("no_such_log: no such directory"));
  EXPECT_THAT(report_records(dir.path() / "no_such_log"), HasSubstr("no such directory"));
  EXPECT_THAT(report_records(dir.path()), Not(HasSubstr("no such directory"))) << "it exists, empty";
}

// --- show_record -------------------------------------------------------------------------------------------

TEST_F(CandidateLog, ShowSummaryIsTheRecordAndItsLineageAsJson) {
  const json shown = show_summary(dir.path(), best.uuid);
  EXPECT_EQ(shown["record"]["uuid"], best.uuid);
  EXPECT_EQ(shown["record"]["idea"], "vectorise the loads");
  const json& lineage = shown["lineage"];
  ASSERT_EQ(lineage.size(), 3u) << lineage.dump(2);
  EXPECT_EQ(lineage[0]["file"], best.file_name());
  EXPECT_DOUBLE_EQ(lineage[0]["speedup_over_parent"].get<double>(), 2.0);
  EXPECT_EQ(lineage[1]["uuid"], first.uuid);
  EXPECT_EQ(lineage[2]["uuid"], rejected.uuid);
  EXPECT_EQ(lineage[2]["verdict_status"], "INCORRECT_NUMERICAL");
}

TEST_F(CandidateLog, ShowPrintsTheRecordAndItsLineageBackToRoundOne) {
  const std::string text = show_record(dir.path(), best.uuid);
  // The record itself, as JSON.
  EXPECT_THAT(text, HasSubstr("\"uuid\": \"" + best.uuid + "\""));
  EXPECT_THAT(text, HasSubstr("\"idea\": \"vectorise the loads\""));
  const size_t lineage = text.find("lineage");
  ASSERT_NE(lineage, std::string::npos) << text;

  // Child, then parent, then grandparent.
  const size_t child = text.find(best.file_name(), lineage);
  const size_t parent = text.find(first.file_name(), lineage);
  const size_t grandparent = text.find(rejected.file_name(), lineage);
  ASSERT_NE(child, std::string::npos) << text;
  ASSERT_NE(parent, std::string::npos) << text;
  ASSERT_NE(grandparent, std::string::npos) << text;
  EXPECT_LT(child, parent);
  EXPECT_LT(parent, grandparent);
  const std::string listing = text.substr(lineage);
  EXPECT_THAT(listing, HasSubstr("round 3 (optimisation 1)"));
  EXPECT_THAT(listing, HasSubstr("40.0 us"));
  EXPECT_THAT(listing, HasSubstr("2.00x its parent"));
  EXPECT_THAT(listing, HasSubstr("idea: vectorise the loads"));
  EXPECT_THAT(listing, HasSubstr("80.0 us"));
  EXPECT_THAT(listing, HasSubstr("INCORRECT_NUMERICAL"));
  // Not the siblings, and a chain that ends where round 1 has no parent.
  EXPECT_THAT(listing, Not(HasSubstr(other.file_name())));
  EXPECT_THAT(listing, Not(HasSubstr(slow.file_name())));
  EXPECT_THAT(listing, Not(HasSubstr("not in this log")));
}

TEST_F(CandidateLog, ShowFindsARecordByFileNameWithOrWithoutJsonOrAPrefix) {
  const std::string name = other.file_name();
  const std::string stem = name.substr(0, name.size() - 5);
  for (const std::string& which : {name, stem, other.uuid})
    EXPECT_THAT(show_record(dir.path(), which), HasSubstr("\"uuid\": \"" + other.uuid + "\"")) << which;
}

TEST_F(CandidateLog, ShowThrowsForNoMatchOrSeveral) {
  EXPECT_THROW(show_record(dir.path(), "c_no_such_record"), std::invalid_argument);
  try {
    show_record(dir.path(), "c_");
    ADD_FAILURE() << "c_ names four records";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("4 records match 'c_'"));
  }
}

TEST_F(CandidateLog, ShowFindsBrainstormRecordsToo) {
  const std::string text = show_record(dir.path(), failed_ideas.uuid);
  EXPECT_THAT(text, HasSubstr("the answer has no ```json block"));
  EXPECT_THAT(text.substr(text.find("lineage")), HasSubstr(slow.file_name())) << "its parent kernel";
}

TEST(Show, TheLineageStopsAtAParentMissingFromTheLog) {
  const test::ScratchDir dir;
  const std::string missing = "00000000-0000-4000-8000-00000000dead";
  const CandidateRecord parent = make_record({.timestamp = "2025-01-01T00:00:01.000Z", .round = 2,
                                              .median_us = 80.0, .parent = missing});
  const CandidateRecord child = make_record({.timestamp = "2025-01-01T00:00:02.000Z", .round = 3, .median_us = 40.0,
                                             .parent = parent.uuid, .optimisation_round = 1, .idea = "tile",
                                             .speedup_over_parent = 2.0});
  write_record(dir.path(), parent);
  write_record(dir.path(), child);
  const std::string text = show_record(dir.path(), child.uuid);
  const std::string listing = text.substr(text.find("lineage"));
  EXPECT_THAT(listing, HasSubstr(child.file_name()));
  EXPECT_THAT(listing, HasSubstr(parent.file_name()));
  EXPECT_THAT(listing, HasSubstr(missing + " (not in this log)"));
  EXPECT_LT(listing.find(parent.file_name()), listing.find(missing));
  const json last = show_summary(dir.path(), child.uuid)["lineage"].back();
  EXPECT_EQ(last, json({{"uuid", missing}, {"in_log", false}}));
}

TEST(Show, ALineageThatLoopsEndsInsteadOfRunningForever) {
  const test::ScratchDir dir;
  CandidateRecord a = make_record({.timestamp = "2025-01-01T00:00:01.000Z", .round = 2, .median_us = 80.0});
  CandidateRecord b = make_record({.timestamp = "2025-01-01T00:00:02.000Z", .round = 3, .median_us = 40.0,
                                   .parent = a.uuid, .optimisation_round = 1});
  a.parent = b.uuid;  // a damaged log
  write_record(dir.path(), a);
  write_record(dir.path(), b);
  const std::string text = show_record(dir.path(), b.uuid);
  const std::string listing = text.substr(text.find("lineage"));
  EXPECT_THAT(listing, HasSubstr(a.file_name()));
  // b's file name appears once: the loop back to it is not followed.
  const size_t at = listing.find(b.file_name());
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(listing.find(b.file_name(), at + 1), std::string::npos) << listing;
}

}  // namespace
}  // namespace kernelgen
