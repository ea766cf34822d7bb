// verdict: status names as records and the CLI print them, and the report a person or a model reads.
#include "kernelgen/verdict.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

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
  verdict.timing = Timing{"llvmpipe", 5, 1500.5, 1200, -HUGE_VAL, 0.25};

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

}  // namespace
}  // namespace kernelgen
