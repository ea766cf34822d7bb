// parse_dispatch_line: a kernel.comp declares its grid on exactly one `// kernelgen: dispatch X Y Z` line.
#include "kernelgen/kernel_source.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

const std::string kHeader = "#version 450\nlayout(local_size_x = 64) in;\n";

TEST(DispatchLine, ReadsTheThreeExtents) {
  std::string error;
  const auto grid = parse_dispatch_line(kHeader + "// kernelgen: dispatch 129 7 2\nvoid main() {}\n", &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->x, 129u);
  EXPECT_EQ(grid->y, 7u);
  EXPECT_EQ(grid->z, 2u);
}

TEST(DispatchLine, ToleratesSpacingAndWindowsLineEndings) {
  std::string error;
  const auto tight = parse_dispatch_line("//kernelgen:dispatch 8 1 1\n", &error);
  ASSERT_TRUE(tight) << error;
  EXPECT_EQ(tight->x, 8u);
  const auto loose =
      parse_dispatch_line("#version 450\r\n   //  kernelgen :  dispatch   4   2   1   \r\n", &error);
  ASSERT_TRUE(loose) << error;
  EXPECT_EQ(loose->x, 4u);
  EXPECT_EQ(loose->y, 2u);
}

TEST(DispatchLine, MayFollowCodeOnTheSameLine) {
  std::string error;
  const auto grid =
      parse_dispatch_line("layout(local_size_x = 64) in;  // kernelgen: dispatch 3 2 1\n", &error);
  ASSERT_TRUE(grid) << error;
  EXPECT_EQ(grid->x, 3u);
}

TEST(DispatchLine, MissingIsAnErrorThatShowsTheExpectedForm) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line(kHeader + "// dispatch 8 1 1\nvoid main() {}\n", &error));
  EXPECT_THAT(error, HasSubstr("no `// kernelgen: dispatch X Y Z` line"));
}

TEST(DispatchLine, ASecondLineIsAnErrorNamingItsLineNumber) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8 1 1\n// kernelgen: dispatch 8 1 1\n", &error));
  EXPECT_THAT(error, HasSubstr("line 2"));
  EXPECT_THAT(error, HasSubstr("second"));
}

TEST(DispatchLine, TwoExtentsAreMalformed) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line(kHeader + "// kernelgen: dispatch 8 1\n", &error));
  EXPECT_THAT(error, HasSubstr("line 3"));
  EXPECT_THAT(error, HasSubstr("three positive integers"));
  EXPECT_THAT(error, HasSubstr("`// kernelgen: dispatch 8 1`")) << "quotes the offending line";
}

TEST(DispatchLine, NonNumericExtentsAreMalformed) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch N/256 1 1\n", &error));
  EXPECT_THAT(error, HasSubstr("three positive integers"));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch -8 1 1\n", &error));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8 1 1 1\n", &error));
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8, 1, 1\n", &error));
}

TEST(DispatchLine, AZeroExtentIsRejected) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 8 0 1\n", &error));
  EXPECT_THAT(error, HasSubstr("between 1 and 2^32-1"));
}

TEST(DispatchLine, AnExtentPast32BitsIsRejected) {
  std::string error;
  EXPECT_FALSE(parse_dispatch_line("// kernelgen: dispatch 4294967296 1 1\n", &error));
  EXPECT_THAT(error, HasSubstr("between 1 and 2^32-1"));
  const auto largest = parse_dispatch_line("// kernelgen: dispatch 4294967295 1 1\n", &error);
  ASSERT_TRUE(largest) << error;
  EXPECT_EQ(largest->x, 4294967295u);
}

}  // namespace
}  // namespace kernelgen
