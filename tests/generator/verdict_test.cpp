// verdict: status names as records and the CLI print them, and the report a person or a model reads.
#include "kernelgen/validation/verdict.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr Status kAll[] = {Status::PASSED,           Status::COMPILE_ERROR, Status::INTERFACE_MISMATCH,
                           Status::RUNTIME_ERROR,    Status::TIMEOUT,       Status::INCORRECT_NUMERICAL,
                           Status::NONDETERMINISTIC, Status::WROTE_INPUT,   Status::OUT_OF_BOUNDS};

TEST(Status, EveryStatusRoundTripsThroughItsName) {
  for (Status status : kAll) {
    const std::string name = status_name(status);
    EXPECT_EQ(parse_status(name), status) << name;
  }
  EXPECT_STREQ(status_name(Status::OUT_OF_BOUNDS), "OUT_OF_BOUNDS");
}

TEST(Status, UnknownAndWronglyCasedNamesDoNotParse) {
  EXPECT_FALSE(parse_status("passed"));
  EXPECT_FALSE(parse_status("CORRECT"));
  EXPECT_FALSE(parse_status(""));
}

Verdict failing_verdict() {
  Verdict verdict;
  verdict.status = Status::OUT_OF_BOUNDS;
  verdict.reason = "case zeros: wrote past the end of binding 1 (output y)";
  verdict.base_seed = 424242;
  verdict.device = "llvmpipe";
  CaseResult ok{"uniform", 1, Status::PASSED, "y", ""};
  ok.comparison.elements = 8;
  CaseResult bad{"zeros", 2, Status::OUT_OF_BOUNDS, "y", "wrote past the end of binding 1 (output y)"};
  verdict.cases = {ok, bad};
  return verdict;
}

TEST(Describe, LeadsWithTheStatusAndReasonThenOneLinePerCaseThenTheSeed) {
  const std::string text = describe(failing_verdict());
  EXPECT_THAT(text, ::testing::StartsWith("OUT_OF_BOUNDS: case zeros: wrote past the end"));
  EXPECT_THAT(text, HasSubstr("\n  ok   uniform  max abs err 0"));
  EXPECT_THAT(text,
              HasSubstr("\n  FAIL zeros  [OUT_OF_BOUNDS] wrote past the end of binding 1 (output y)\n"));
  EXPECT_THAT(text, HasSubstr("replay with KERNELGEN_SEED=424242\n"));
}

TEST(Describe, IncludesTheCompileLog) {
  Verdict verdict;
  verdict.status = Status::COMPILE_ERROR;
  verdict.reason = "glslang could not compile the shader";
  verdict.log = "ERROR: kernel.comp:3: 'x' : undeclared identifier";
  const std::string text = describe(verdict);
  EXPECT_THAT(text, HasSubstr("COMPILE_ERROR: glslang could not compile the shader\n"));
  EXPECT_THAT(text, HasSubstr("kernel.comp:3: 'x' : undeclared identifier\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("KERNELGEN_SEED")))
      << "nothing ran, so there is nothing to replay";
}

TEST(VerdictJson, RecordsStatusesByNameAndEveryCase) {
  const nlohmann::json json = failing_verdict();
  EXPECT_EQ(json.at("status"), "OUT_OF_BOUNDS");
  EXPECT_EQ(json.at("base_seed"), 424242);
  EXPECT_EQ(json.at("device"), "llvmpipe");
  ASSERT_EQ(json.at("cases").size(), 2u);
  EXPECT_EQ(json.at("cases")[1].at("name"), "zeros");
  EXPECT_EQ(json.at("cases")[1].at("status"), "OUT_OF_BOUNDS");
  EXPECT_EQ(json.at("cases")[1].at("tensor"), "y");
  EXPECT_FALSE(json.contains("timing")) << "no timing for a rejected kernel";
}

// The validation worker sends its verdict to the parent process as JSON: nothing may be lost on the way,
// NaN and infinities included.
TEST(VerdictJson, ParsesBackToTheSameVerdict) {
  Verdict verdict = failing_verdict();
  verdict.log = "a log\nof two lines";
  verdict.cases[1].comparison.got_at_first = std::nanf("");
  verdict.cases[1].comparison.max_rel_error = HUGE_VAL;
  verdict.timing = Timing{.device = "llvmpipe", .runs = 5, .dims = "", .median_ns = 1500.5, .min_ns = 1200,
      .gbytes_per_second = -HUGE_VAL, .gflops = 0.25};

  const Verdict back = nlohmann::json::parse(nlohmann::json(verdict).dump()).get<Verdict>();
  EXPECT_EQ(nlohmann::json(back).dump(), nlohmann::json(verdict).dump());
  EXPECT_EQ(back.status, Status::OUT_OF_BOUNDS);
  EXPECT_EQ(back.base_seed, 424242u);
  EXPECT_EQ(back.log, verdict.log);
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_TRUE(std::isnan(back.cases[1].comparison.got_at_first));
  EXPECT_EQ(back.cases[1].comparison.max_rel_error, HUGE_VAL);
  ASSERT_TRUE(back.timing);
  EXPECT_EQ(back.timing->median_ns, 1500.5);
  EXPECT_EQ(back.timing->gbytes_per_second, -HUGE_VAL);
}

TEST(VerdictJson, AnUnknownStatusDoesNotParse) {
  nlohmann::json json = failing_verdict();
  json["status"] = "FINE";
  EXPECT_THROW(json.get<Verdict>(), std::invalid_argument);
}

// An op validated at several sizes: the passing cases of a kind fold into one line, the failure keeps its
// size.
Verdict sized_verdict() {
  Verdict verdict;
  verdict.status = Status::INCORRECT_NUMERICAL;
  verdict.reason = "case zeros: 3 of 7000 elements of y at rows=7 differ from the reference";
  verdict.base_seed = 99;
  for (const char* dims : {"rows=1", "rows=7", "rows=64"}) {
    for (const char* name : {"uniform", "zeros"}) {
      CaseResult c{name, 1, Status::PASSED, "y", ""};
      c.dims = dims;
      c.comparison.elements = 1000;
      c.comparison.max_abs_error = std::string(dims) == "rows=64" ? 0.5 : 0.125;
      if (std::string(name) == "zeros" && std::string(dims) == "rows=7") {
        c.status = Status::INCORRECT_NUMERICAL;
        c.detail = "3 of 7000 elements of y at rows=7 differ from the reference";
      }
      verdict.cases.push_back(c);
    }
  }
  return verdict;
}

TEST(Describe, CasesAtSeveralSizesShowTheFailureWithItsDimsAndOneLinePerKind) {
  const std::string text = describe(sized_verdict());
  EXPECT_THAT(text, ::testing::StartsWith("INCORRECT_NUMERICAL: case zeros: "));
  EXPECT_THAT(
      text,
      HasSubstr("\n  FAIL zeros at rows=7  max abs err 0.125, max rel err 0  [INCORRECT_NUMERICAL] 3 of "
                "7000 elements of y at rows=7 differ from the reference\n"));
  EXPECT_THAT(text, HasSubstr("\n  ok   uniform (3 sizes)  max abs err 0.5, max rel err 0\n"))
      << "the largest error over the sizes";
  EXPECT_THAT(text, HasSubstr("\n  ok   zeros (2 sizes)  max abs err 0.5"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("uniform at rows=1"))) << "passing cases do not get a line each";
  EXPECT_THAT(text, HasSubstr("replay with KERNELGEN_SEED=99\n"));
}

// The timed size's cases are one size, checked on several input distributions.
TEST(Describe, TheTimedSizesCasesAreOneSizeOfSeveralCases) {
  Verdict verdict = sized_verdict();
  for (int run = 0; run < 3; ++run) {
    CaseResult timed{"timed", 7, Status::PASSED, ""};
    timed.dims = "rows=2000";
    verdict.cases.push_back(timed);
  }
  EXPECT_THAT(describe(verdict), HasSubstr("\n  ok   timed (1 size, 3 cases)"));
}

TEST(Describe, AKindThatFailedAtEverySizeItRanGetsNoSummaryLine) {
  Verdict verdict = sized_verdict();
  verdict.cases.erase(verdict.cases.begin() + 1);  // zeros at rows=1
  verdict.cases.pop_back();                        // zeros at rows=64
  const std::string text = describe(verdict);
  EXPECT_THAT(text, HasSubstr("FAIL zeros at rows=7"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("zeros (")));
  EXPECT_THAT(text, HasSubstr("ok   uniform (3 sizes)"));
}

TEST(Describe, TimingNamesTheDimsItRanAt) {
  Verdict verdict;
  verdict.timing = Timing{.device = "llvmpipe", .runs = 5, .dims = "rows=32768", .median_ns = 1500, .min_ns = 1200,
      .gbytes_per_second = 2.5, .gflops = 1.5};
  EXPECT_THAT(describe(verdict),
              HasSubstr("GPU time: median 1.5 us, 2.5 GB/s, 1.5 GFLOP/s on llvmpipe at rows=32768\n"));
  verdict.timing->dims = "";
  EXPECT_THAT(describe(verdict), HasSubstr("on llvmpipe\n"));
  verdict.timing->gflops = 0;  // an op that declares no FLOPS
  EXPECT_THAT(describe(verdict), HasSubstr("GPU time: median 1.5 us, 2.5 GB/s on llvmpipe\n"));
  EXPECT_THAT(describe(verdict), Not(HasSubstr("spread")));  // a timing from before the quartiles were kept
}

// The driver's statistics of the timed pipeline (VK_KHR_pipeline_executable_properties), as NVIDIA names them.
TEST(Describe, TimingGivesThePipelinesStatisticsWhereTheDriverReportsThem) {
  Verdict verdict;
  verdict.timing = Timing{.device = "NVIDIA H100", .runs = 31, .median_ns = 1500, .min_ns = 1200,
      .gbytes_per_second = 2.5, .gflops = 1.5};
  EXPECT_THAT(describe(verdict), Not(HasSubstr("pipeline")));
  verdict.timing->pipeline = {{"Register Count", "128"}, {"Shared Memory Size", "36864"}};
  EXPECT_THAT(describe(verdict),
              HasSubstr("  pipeline (the driver's statistics): Register Count 128, Shared Memory Size 36864\n"));
  const Verdict back = nlohmann::json::parse(nlohmann::json(verdict).dump()).get<Verdict>();
  ASSERT_TRUE(back.timing);
  EXPECT_EQ(back.timing->pipeline, verdict.timing->pipeline);
}

TEST(Describe, TimingGivesItsSpreadAndFractionOfPeak) {
  Verdict verdict;
  verdict.timing = Timing{.device = "llvmpipe", .runs = 31, .median_ns = 1500, .min_ns = 1200, .p25_ns = 1400,
      .p75_ns = 1650, .gbytes_per_second = 2.5, .gflops = 1.5, .fraction_of_peak = 0.125};
  EXPECT_THAT(describe(verdict), HasSubstr("  spread (interquartile) 0.25 us over 31 runs, 12.5% of the device's peak\n"));
  verdict.timing->fraction_of_peak.reset();
  EXPECT_THAT(describe(verdict), HasSubstr("  spread (interquartile) 0.25 us over 31 runs\n"));
}

TEST(VerdictJson, CaseAndTimingDimsRoundTrip) {
  Verdict verdict = sized_verdict();
  verdict.timing = Timing{.device = "llvmpipe", .runs = 5, .dims = "rows=32768 cols=4096", .median_ns = 1500, .min_ns = 1200,
      .gbytes_per_second = 2.5, .gflops = 1.25};
  const nlohmann::json json = verdict;
  EXPECT_EQ(json.at("cases")[2].at("dims"), "rows=7");
  EXPECT_EQ(json.at("timing").at("dims"), "rows=32768 cols=4096");
  const Verdict back = nlohmann::json::parse(json.dump()).get<Verdict>();
  ASSERT_EQ(back.cases.size(), verdict.cases.size());
  for (size_t i = 0; i < back.cases.size(); ++i) EXPECT_EQ(back.cases[i].dims, verdict.cases[i].dims) << i;
  ASSERT_TRUE(back.timing);
  EXPECT_EQ(back.timing->dims, "rows=32768 cols=4096");
  EXPECT_EQ(nlohmann::json(back), json);
}

// How the timed runs' flush evicted: "read" under KERNELGEN_TIMING_FLUSH=read, written only then; JSON without it
// (every manifest checked in before it) reads as the written flush it then always was.
TEST(VerdictJson, TheFlushKindRoundTripsAndDefaultsToWrite) {
  Verdict verdict = sized_verdict();
  verdict.timing = Timing{.device = "NVIDIA H200", .runs = 31, .median_ns = 13000, .min_ns = 12900,
      .flush_bytes = 256u << 20, .flush = "read", .gbytes_per_second = 2581, .gflops = 2.6};
  nlohmann::json json = verdict;
  EXPECT_EQ(json.at("timing").at("flush"), "read");
  EXPECT_EQ(nlohmann::json::parse(json.dump()).get<Verdict>().timing->flush, "read");
  verdict.timing->flush = "write";
  json = verdict;
  EXPECT_FALSE(json.at("timing").contains("flush")) << "the default is left out, as in manifests written before it";
  EXPECT_EQ(json.get<Verdict>().timing->flush, "write");
}

TEST(VerdictJson, JsonWrittenBeforeDimsStillParses) {
  nlohmann::json json = failing_verdict();
  json["timing"] = Timing{.device = "llvmpipe", .runs = 5, .dims = "rows=1", .median_ns = 1500.5, .min_ns = 1200,
      .gbytes_per_second = 1, .gflops = 0.25};
  for (auto& c : json.at("cases")) c.erase("dims");
  json.at("timing").erase("dims");
  const Verdict back = json.get<Verdict>();
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].dims, "");
  EXPECT_EQ(back.cases[1].name, "zeros");
  ASSERT_TRUE(back.timing);
  EXPECT_EQ(back.timing->dims, "");
  EXPECT_EQ(back.timing->median_ns, 1500.5);
  EXPECT_THAT(describe(back), HasSubstr("\n  FAIL zeros  [OUT_OF_BOUNDS]"))
      << "described as an op without dims";
}

}  // namespace
}  // namespace kernelgen
