// make_cases: the validation suite of DESIGN.md, 5 random and 5 edge cases, reproducible from a base seed.
#include "kernelgen/cases.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::ElementsAre;

OpSpec two_input_spec() {
  return parse_op_spec(nlohmann::json::parse(R"({
    "name": "add",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3, 4]}, {"name": "y", "dtype": "f32", "shape": [3, 4]}],
    "outputs": [{"name": "z", "dtype": "f32", "shape": [2, 3, 4]}]
  })"));
}

OpSpec large_spec() {
  return parse_op_spec(nlohmann::json::parse(R"({
    "name": "relu",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4096]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [4096]}]
  })"));
}

const TestCase& find_case(const std::vector<TestCase>& cases, const std::string& name) {
  auto found = std::find_if(cases.begin(), cases.end(), [&](const TestCase& c) { return c.name == name; });
  if (found == cases.end()) throw std::logic_error("no case " + name);
  return *found;
}

TEST(Cases, AreFiveRandomThenFiveEdgeCasesInAFixedOrder) {
  std::vector<std::string> names;
  for (const TestCase& c : make_cases(two_input_spec(), 1)) names.push_back(c.name);
  EXPECT_THAT(names, ElementsAre("uniform", "normal", "sparse", "large", "tiny", "zeros", "ones", "extremes",
                                 "checkerboard", "ramp"));
}

TEST(Cases, HoldOneTensorPerInputWithItsElementCount) {
  for (const TestCase& c : make_cases(two_input_spec(), 1)) {
    ASSERT_EQ(c.inputs.size(), 2u) << c.name;
    EXPECT_EQ(c.inputs[0].size(), 24u) << c.name;
    EXPECT_EQ(c.inputs[1].size(), 12u) << c.name;
  }
}

TEST(Cases, EachCaseHasItsOwnSeed) {
  std::set<uint64_t> seeds;
  for (const TestCase& c : make_cases(two_input_spec(), 42)) seeds.insert(c.seed);
  EXPECT_EQ(seeds.size(), 10u);
}

TEST(Cases, TheSameBaseSeedGivesIdenticalInputs) {
  const auto a = make_cases(two_input_spec(), 12345);
  const auto b = make_cases(two_input_spec(), 12345);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].seed, b[i].seed) << a[i].name;
    EXPECT_EQ(a[i].inputs, b[i].inputs) << a[i].name;
  }
}

TEST(Cases, ADifferentBaseSeedChangesEveryRandomCaseButNoEdgeCase) {
  const auto a = make_cases(two_input_spec(), 1);
  const auto b = make_cases(two_input_spec(), 2);
  for (const char* name : {"uniform", "normal", "sparse", "large", "tiny"})
    EXPECT_NE(find_case(a, name).inputs, find_case(b, name).inputs) << name;
  for (const char* name : {"zeros", "ones", "extremes", "checkerboard", "ramp"})
    EXPECT_EQ(find_case(a, name).inputs, find_case(b, name).inputs) << name;
}

TEST(Cases, TwoInputsOfARandomCaseAreDrawnIndependently) {
  const TestCase c = make_case(two_input_spec(), "uniform", 7);
  const std::vector<float> head(c.inputs[0].begin(), c.inputs[0].begin() + 12);
  EXPECT_NE(head, c.inputs[1]);
}

TEST(Cases, MakeCaseGivesTheSameTensorsAsTheSuite) {
  const auto suite = make_cases(two_input_spec(), 99);
  for (const TestCase& c : suite)
    EXPECT_EQ(make_case(two_input_spec(), c.name, 99).inputs, c.inputs) << c.name;
}

TEST(Cases, AnUnknownCaseNameIsRejected) {
  EXPECT_THROW(make_case(two_input_spec(), "gaussian", 1), std::invalid_argument);
}

TEST(Cases, RandomCasesDrawFromTheirDistributions) {
  const auto cases = make_cases(large_spec(), 2024);
  const auto& uniform = find_case(cases, "uniform").inputs[0];
  EXPECT_TRUE(std::all_of(uniform.begin(), uniform.end(), [](float v) { return v >= -1 && v <= 1; }));
  EXPECT_LT(*std::min_element(uniform.begin(), uniform.end()), -0.9f);
  EXPECT_GT(*std::max_element(uniform.begin(), uniform.end()), 0.9f);

  const auto& normal = find_case(cases, "normal").inputs[0];
  EXPECT_GT(*std::max_element(normal.begin(), normal.end(),
                              [](float a, float b) { return std::fabs(a) < std::fabs(b); }),
            1.5f)
      << "a normal(0,1) sample of 4096 reaches past 1.5";

  const auto& sparse = find_case(cases, "sparse").inputs[0];
  const auto zeros = std::count(sparse.begin(), sparse.end(), 0.0f);
  EXPECT_GT(zeros, 4096 * 85 / 100);
  EXPECT_LT(zeros, 4096 * 95 / 100);

  const auto& large = find_case(cases, "large").inputs[0];
  EXPECT_TRUE(std::all_of(large.begin(), large.end(), [](float v) { return std::fabs(v) <= 1e4f; }));
  EXPECT_GT(*std::max_element(large.begin(), large.end()), 9e3f);

  const auto& tiny = find_case(cases, "tiny").inputs[0];
  EXPECT_TRUE(std::all_of(tiny.begin(), tiny.end(), [](float v) { return std::fabs(v) <= 1e-4f; }));
  EXPECT_GT(*std::max_element(tiny.begin(), tiny.end()), 9e-5f);
}

TEST(Cases, EdgeCasesHoldExactValues) {
  const auto cases = make_cases(two_input_spec(), 5);
  const auto& x = [&](const char* name) -> const std::vector<float>& {
    return find_case(cases, name).inputs[0];
  };
  EXPECT_EQ(x("zeros"), std::vector<float>(24, 0.0f));
  EXPECT_EQ(x("ones"), std::vector<float>(24, 1.0f));
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(x("extremes")[i], i % 2 ? -65504.0f : 65504.0f) << i;
  // x is [2,3,4]: the sign alternates along the last two dimensions, and each of the 2 slices repeats it.
  const std::vector<float> slice{1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1};
  EXPECT_EQ(std::vector<float>(x("checkerboard").begin(), x("checkerboard").begin() + 12), slice);
  EXPECT_EQ(std::vector<float>(x("checkerboard").begin() + 12, x("checkerboard").end()), slice);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(x("ramp")[i], static_cast<float>(static_cast<int>(i) - 12)) << i;
}


TEST(BaseSeed, ReplaysKernelgenSeed) {
  const test::ScopedEnv seed("KERNELGEN_SEED", "1234567890123");
  EXPECT_EQ(base_seed_from_environment(), 1234567890123u);
  EXPECT_EQ(base_seed_from_environment(), 1234567890123u);
}

TEST(BaseSeed, AcceptsTheFullUnsigned64BitRangeAndHex) {
  {
    const test::ScopedEnv seed("KERNELGEN_SEED", "18446744073709551615");
    EXPECT_EQ(base_seed_from_environment(), 18446744073709551615u);
  }
  const test::ScopedEnv seed("KERNELGEN_SEED", "0x10");
  EXPECT_EQ(base_seed_from_environment(), 16u);
}

TEST(BaseSeed, RejectsASeedThatIsNotANumber) {
  const test::ScopedEnv seed("KERNELGEN_SEED", "12abc");
  EXPECT_THROW(base_seed_from_environment(), std::invalid_argument);
}

TEST(BaseSeed, IsFreshEachCallWithoutKernelgenSeed) {
  const test::ScopedEnv seed("KERNELGEN_SEED", nullptr);
  EXPECT_NE(base_seed_from_environment(), base_seed_from_environment());
  const test::ScopedEnv empty("KERNELGEN_SEED", "");
  EXPECT_NE(base_seed_from_environment(), base_seed_from_environment());
}

}  // namespace
}  // namespace kernelgen
