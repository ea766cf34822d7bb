// verdict: status names as records and the CLI print them, and the report a person or a model reads.
#include "kernelgen/verdict.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kernelgen
