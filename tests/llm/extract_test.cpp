// The fence scanner reads fenced code blocks as CommonMark does, and extract_kernel picks the shader.
#include "kernelgen/search/extract.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

const std::string kShader = "#version 450\nvoid main() {}\n";

TEST(Extract, TakesABacktickFencedGlslBlock) {
  const Extraction e = extract_kernel("Here it is:\n\n```glsl\n" + kShader + "```\nDone.");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, TakesATildeFencedBlock) {
  const Extraction e = extract_kernel("~~~glsl\n" + kShader + "~~~\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, ClosingFenceMayBeLongerThanTheOpening) {
  const Extraction e = extract_kernel("```glsl\n" + kShader + "`````\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, ShorterOrOtherCharacterFencesDoNotClose) {
  const auto blocks = scan_code_blocks("````glsl\na\n```\nb\n~~~~\nc\n````\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "a\n```\nb\n~~~~\nc\n");
  EXPECT_TRUE(blocks[0].closed);
}

TEST(Extract, NestedShorterFenceInsideALongerOneIsContent) {
  const std::string inner = "// example:\n```glsl\nfoo\n```\n" + kShader;
  const Extraction e = extract_kernel("`````glsl\n" + inner + "`````\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, inner);
}

TEST(Extract, AFenceWithAnInfoStringDoesNotClose) {
  const auto blocks = scan_code_blocks("```glsl\na\n```cpp\nb\n```\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "a\n```cpp\nb\n");
}

TEST(Extract, InfoStringIsTheFirstWordLowerCased) {
  const auto blocks = scan_code_blocks(
      "```glsl {.numberLines}\na\n```\n```  GLSL\nb\n```\n~~~comp title=\"relu\"\nc\n~~~\n```\nd\n```\n");
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].info, "glsl");
  EXPECT_EQ(blocks[1].info, "glsl");
  EXPECT_EQ(blocks[2].info, "comp");
  EXPECT_EQ(blocks[3].info, "");
}

TEST(Extract, GlslWithAttributesIsTaken) {
  const Extraction e = extract_kernel("```glsl {.numberLines}\n" + kShader + "```\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, CompTaggedBlockIsTaken) {
  const Extraction e = extract_kernel("```cpp\nint x;\n```\n```comp\n" + kShader + "```\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, BacktickFenceInfoWithBackticksIsNotAFence) {
  EXPECT_TRUE(scan_code_blocks("```glsl `inline`\nx\n").empty());
  EXPECT_TRUE(scan_code_blocks("``` a`b\nx\n").empty());
}

TEST(Extract, TildeFenceInfoMayContainBackticks) {
  const auto blocks = scan_code_blocks("~~~ glsl `x`\nx\n~~~\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].info, "glsl");
}

TEST(Extract, FenceIndentedUpToThreeSpacesIsAFenceAndItsIndentIsRemoved) {
  const auto blocks = scan_code_blocks("   ```glsl\n   a\n  b\n     c\n   ```\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "a\nb\n  c\n");
  EXPECT_TRUE(blocks[0].closed);
}

TEST(Extract, FenceIndentedFourSpacesIsNotAFence) {
  EXPECT_TRUE(scan_code_blocks("    ```glsl\n    a\n    ```\n").empty());
  const Extraction e = extract_kernel("    ```glsl\n    " + kShader + "    ```\n");
  EXPECT_FALSE(e.ok);
}

TEST(Extract, ClosingFenceIndentedFourSpacesIsContent) {
  const auto blocks = scan_code_blocks("```glsl\na\n    ```\n```\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].code, "a\n    ```\n");
}

TEST(Extract, TwoCharacterFenceIsNotAFence) {
  EXPECT_TRUE(scan_code_blocks("``glsl\nx\n``\n").empty());
}

TEST(Extract, UnclosedFenceIsAFailureSayingTheReplyWasCutOff) {
  const Extraction e = extract_kernel("```glsl\n#version 450\nvoid main() {\n  y[i] = ");
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.error, HasSubstr("not closed"));
  const auto blocks = scan_code_blocks("```glsl\nx\n");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].closed);
}

TEST(Extract, NoBlockIsAFailureAskingForAGlslBlock) {
  const Extraction e = extract_kernel("I would write a loop over all elements and take max(x, 0).");
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.error, HasSubstr("no fenced code block"));
  EXPECT_FALSE(extract_kernel("").ok);
}

TEST(Extract, EmptyBlockIsAFailure) {
  const Extraction e = extract_kernel("```glsl\n\n```\n");
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.error, HasSubstr("empty"));
}

TEST(Extract, AmongSeveralBlocksTheGlslOneIsTaken) {
  const Extraction e = extract_kernel("```cpp\nfloat relu(float x);\n```\nand\n```glsl\n" + kShader +
                                      "```\n```\nnotes\n```\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, AmongSeveralGlslBlocksTheLastIsTaken) {
  const std::string revised = "#version 450\n// revised\nvoid main() {}\n";
  const Extraction e =
      extract_kernel("First try:\n```glsl\n" + kShader + "```\nBetter:\n```glsl\n" + revised + "```\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, revised);
}

TEST(Extract, OneUntaggedBlockIsTaken) {
  const Extraction e = extract_kernel("```\n" + kShader + "```\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, SeveralUntaggedBlocksAreAFailure) {
  const Extraction e = extract_kernel("```\n" + kShader + "```\n```\n" + kShader + "```\n");
  EXPECT_FALSE(e.ok);
  EXPECT_THAT(e.error, HasSubstr("none is tagged glsl"));
}

TEST(Extract, CrlfLinesAreRead) {
  const Extraction e = extract_kernel("Here:\r\n```glsl\r\n#version 450\r\nvoid main() {}\r\n```\r\n");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

TEST(Extract, HugeInputIsScanned) {
  std::string text;
  const std::string filler = "This paragraph explains the kernel at length, line after line.\n";
  while (text.size() < 4u << 20) text += filler;
  std::string body;
  for (int i = 0; i < 20000; ++i)
    body += "  y[" + std::to_string(i) + "] = max(x[" + std::to_string(i) + "], 0.0);\n";
  text += "```glsl\n" + body + "```\n" + text;
  const Extraction e = extract_kernel(text);
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, body);
}

TEST(Extract, TextWithoutATrailingNewlineAfterTheClosingFenceWorks) {
  const Extraction e = extract_kernel("```glsl\n" + kShader + "```");
  ASSERT_TRUE(e.ok) << e.error;
  EXPECT_EQ(e.code, kShader);
}

}  // namespace
}  // namespace kernelgen
