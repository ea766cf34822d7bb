// parse_dispatch_line: a kernel.comp declares its grid on exactly one `// kernelgen: dispatch X Y Z` line,
// each extent an integer expression over the op's dims (a number for an op without dims).
#include "kernelgen/contract/kernel_source.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

const std::string kHeader = "#version 450\nlayout(local_size_x = 64) in;\n";
const std::vector<std::string> kNoDims;
const std::vector<std::string> kRowsCols{"rows", "cols"};

// The grid of an op without dims: its line must evaluate without any.
std::optional<Grid> static_grid(const std::string& source, std::string* error) {
  const auto grid = parse_dispatch_line(source, kNoDims, error);
  if (!grid) return std::nullopt;
  return grid->evaluate({});
}

TEST(DispatchLine, ReadsTheThreeExtents) {
  std::string error;
  const auto grid = static_grid(kHeader + "// kernelgen: dispatch 129 7 2\nvoid main() {}\n", &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->x, 129u);
  EXPECT_EQ(grid->y, 7u);
  EXPECT_EQ(grid->z, 2u);
}

TEST(DispatchLine, ToleratesSpacingAndWindowsLineEndings) {
  std::string error;
  const auto tight = static_grid("//kernelgen:dispatch 8 1 1\n", &error);
  ASSERT_TRUE(tight) << error;
  EXPECT_EQ(tight->x, 8u);
  const auto loose = static_grid("#version 450\r\n   //  kernelgen :  dispatch   4   2   1   \r\n", &error);
  ASSERT_TRUE(loose) << error;
  EXPECT_EQ(loose->x, 4u);
  EXPECT_EQ(loose->y, 2u);
}

TEST(DispatchLine, MayFollowCodeOnTheSameLine) {
  std::string error;
  const auto grid = static_grid("layout(local_size_x = 64) in;  // kernelgen: dispatch 3 2 1\n", &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->x, 3u);
}

TEST(DispatchLine, MissingIsAnErrorThatShowsTheExpectedForm) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line(kHeader + "// dispatch 8 1 1\nvoid main() {}\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("no line declares the number of workgroups to launch; add `// kernelgen: dispatch X Y Z`"));
  EXPECT_FALSE(parse_dispatch_line(kHeader + "// dispatch 8 1 1\nvoid main() {}\n", kRowsCols, &error));
  EXPECT_THAT(error, HasSubstr("no line declares the number of workgroups to launch; add `// kernelgen: dispatch X Y Z`"));
  EXPECT_THAT(error, HasSubstr("e.g. `// kernelgen: dispatch (rows + 63) / 64 1 1`"))
      << "an example over the dims";
}

TEST(DispatchLine, ASecondLineIsAnErrorNamingItsLineNumber) {
  std::string error;
  EXPECT_FALSE(
      parse_dispatch_line("// kernelgen: dispatch 8 1 1\n// kernelgen: dispatch 8 1 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("line 2"));
  EXPECT_THAT(error, HasSubstr("second"));
}

TEST(DispatchLine, ASecondLineIsAnErrorOverDimsToo) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line(
      "// kernelgen: dispatch (rows + 63) / 64 1 1\nvoid main() {}\n// kernelgen: dispatch rows 1 1\n",
      kRowsCols, &error));
  EXPECT_THAT(error, HasSubstr("line 3: a second `// kernelgen: dispatch` line; keep exactly one"));
}

TEST(DispatchLine, TwoExtentsAreMalformed) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line(kHeader + "// kernelgen: dispatch 8 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("line 3"));
  EXPECT_THAT(error, HasSubstr("three positive integers"));
  EXPECT_THAT(error, HasSubstr("`// kernelgen: dispatch 8 1`")) << "quotes the offending line";
}

TEST(DispatchLine, NonNumericExtentsAreMalformed) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch N/256 1 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("three positive integers"));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch -8 1 1\n", kNoDims, &error));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8 1 1 1\n", kNoDims, &error));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8, 1, 1\n", kNoDims, &error));
}

TEST(DispatchLine, AZeroExtentIsRejected) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8 0 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("at least one workgroup"));
}

TEST(DispatchLine, AConstantExpressionThatIsZeroIsRejectedForAStaticOp) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 100 / 128 1 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("line 1"));
  EXPECT_THAT(error, HasSubstr("dispatch extent x"));
  EXPECT_THAT(error, HasSubstr("is 0"));
  EXPECT_THAT(error, HasSubstr("round up: (100 + 127) / 128")) << "says how to fix it";
}

TEST(DispatchLine, AnExtentPast32BitsIsRejected) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 4294967296 1 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("2^32-1"));
  const auto largest = static_grid("// kernelgen: dispatch 4294967295 1 1\n", &error);
  ASSERT_TRUE(largest) << error;
  EXPECT_EQ(largest->x, 4294967295u);
}

TEST(DispatchLine, ExtentsAreExpressionsOverTheDims) {
  std::string error;
  const auto grid = parse_dispatch_line(
      kHeader + "// kernelgen: dispatch (rows + 63) / 64 1 1\nvoid main() {}\n", kRowsCols, &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->text(), "(rows + 63) / 64 1 1");
  EXPECT_TRUE(grid->uses_dims());
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{1, 5}).x, 1u);
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{64, 5}).x, 1u);
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{65, 5}).x, 2u);
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{333, 5}).x, 6u);
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{333, 5}).y, 1u);
}

TEST(DispatchLine, EveryExtentMayUseAnyDimWithMinMaxAndModulo) {
  std::string error;
  const auto grid = parse_dispatch_line(
      "// kernelgen: dispatch min(rows, 65535) (cols + 15) / 16 max(rows % 7, 1)\n", kRowsCols, &error);
  ASSERT_TRUE(grid) << error;
  const Grid at = grid->evaluate(std::vector<int64_t>{100000, 33});
  EXPECT_EQ(at.x, 65535u);
  EXPECT_EQ(at.y, 3u);
  EXPECT_EQ(at.z, 100000u % 7);
}

TEST(DispatchLine, AZeroGridOverDimsIsLeftToEvaluationAtEachSize) {
  std::string error;
  const auto grid = parse_dispatch_line("// kernelgen: dispatch rows / 64 1 1\n", kRowsCols, &error);
  ASSERT_TRUE(grid) << error << ": the line is well formed; only some sizes give 0";
  EXPECT_EQ(grid->evaluate(std::vector<int64_t>{128, 1}).x, 2u);
  try {
    grid->evaluate(std::vector<int64_t>{5, 1});
    FAIL() << "a grid of 0 workgroups at rows=5";
  } catch (const std::domain_error& problem) {
    EXPECT_THAT(problem.what(), HasSubstr("rows=5"));
    EXPECT_THAT(problem.what(), HasSubstr("round up: (rows + 63) / 64"));
  }
}

TEST(DispatchLine, AnUnknownNameIsRejectedNamingTheOpsDims) {
  std::string error;
  EXPECT_FALSE(
      parse_dispatch_line(kHeader + "// kernelgen: dispatch (n + 63) / 64 1 1\n", kRowsCols, &error));
  EXPECT_THAT(error, HasSubstr("line 3"));
  EXPECT_THAT(error, HasSubstr("unknown name 'n' (the op's dims: rows, cols)"));
  EXPECT_THAT(error, HasSubstr("`// kernelgen: dispatch (n + 63) / 64 1 1`")) << "quotes the offending line";
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch rows 1 1\n", kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("unknown name 'rows' (the op has no dims)"));
}

TEST(DispatchLine, AHundredKilobyteLineIsRejectedWithAShortMessage) {
  std::string error;
  const std::string line = "// kernelgen: dispatch " + std::string(100'000, '1') + " 1 1\n";
  EXPECT_FALSE(parse_dispatch_line(kHeader + line, kNoDims, &error));
  EXPECT_THAT(error, HasSubstr("line 3"));
  EXPECT_LT(error.size(), 2000u) << "the line is quoted cut short";
  std::string nested = "// kernelgen: dispatch ";
  for (int i = 0; i < 50'000; ++i) nested += "(";
  EXPECT_FALSE(parse_dispatch_line(nested + "rows 1 1\n", kRowsCols, &error));
  EXPECT_LT(error.size(), 2000u);
}

TEST(DispatchLine, AHundredKilobyteCommentBesideTheDispatchLineIsHarmless) {
  std::string error;
  std::string comment;
  for (int i = 0; i < 25'000; ++i) comment += "// k";
  const auto grid =
      parse_dispatch_line(kHeader + comment + "\n// kernelgen: dispatch rows 1 1\n", kRowsCols, &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->text(), "rows 1 1");
}

}  // namespace
}  // namespace kernelgen
