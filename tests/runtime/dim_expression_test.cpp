// DimExpression and GridExpression: the integer expressions over an op's dims that declare a kernel's launch
// grid and an op's FLOPS. Parse errors say what was expected and where; evaluation errors name the expression
// and the dim values.
#include "kernelgen/dim_expression.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernelgen {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kNoDims;
const std::vector<std::string> kRows{"rows"};
const std::vector<std::string> kRowsCols{"rows", "cols"};

int64_t value_of(const std::string& text, const std::vector<std::string>& dims = kNoDims,
                 const std::vector<int64_t>& values = {}) {
  return DimExpression::parse(text, dims).evaluate(values);
}

// The message parse() throws for `text`, or "" when it parses.
std::string parse_error(const std::string& text, const std::vector<std::string>& dims = kRows) {
  try {
    DimExpression::parse(text, dims);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

std::string grid_parse_error(const std::string& text, const std::vector<std::string>& dims = kRows) {
  try {
    GridExpression::parse(text, dims);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

// The message evaluate() throws, or "" when it evaluates.
std::string evaluate_error(const std::string& text, const std::vector<std::string>& dims,
                           const std::vector<int64_t>& values) {
  const DimExpression expression = DimExpression::parse(text, dims);
  try {
    expression.evaluate(values);
  } catch (const std::domain_error& error) {
    return error.what();
  }
  return "";
}

std::string grid_evaluate_error(const std::string& text, const std::vector<std::string>& dims,
                                const std::vector<int64_t>& values) {
  const GridExpression grid = GridExpression::parse(text, dims);
  try {
    grid.evaluate(values);
  } catch (const std::domain_error& error) {
    return error.what();
  }
  return "";
}

TEST(DimExpression, EvaluatesAConstant) {
  EXPECT_EQ(value_of("42"), 42);
  EXPECT_EQ(value_of("0"), 0);
  EXPECT_EQ(value_of("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(DimExpression::parse("2*3", kRows).uses_dims());
}

TEST(DimExpression, MultipliesBeforeItAdds) {
  EXPECT_EQ(value_of("2 + 3 * 4"), 14);
  EXPECT_EQ(value_of("2 * 3 + 4"), 10);
  EXPECT_EQ(value_of("20 - 12 / 4"), 17);
  EXPECT_EQ(value_of("1 + 7 % 4"), 4);
}

TEST(DimExpression, ParenthesesGroupFirst) {
  EXPECT_EQ(value_of("(2+3)*4"), 20);
  EXPECT_EQ(value_of("((2 + 3)) * (4)"), 20);
}

TEST(DimExpression, OperatorsOfOnePrecedenceAssociateToTheLeft) {
  EXPECT_EQ(value_of("10 - 3 - 2"), 5);
  EXPECT_EQ(value_of("64 / 4 / 2"), 8);
  EXPECT_EQ(value_of("100 / 10 * 5"), 50);
  EXPECT_EQ(value_of("17 % 10 % 4"), 3);
}

TEST(DimExpression, DivisionFloorsAndModuloIsTheRemainder) {
  EXPECT_EQ(value_of("7 / 2"), 3);
  EXPECT_EQ(value_of("63 / 64"), 0);
  EXPECT_EQ(value_of("(100 + 63) / 64"), 2);
  EXPECT_EQ(value_of("7 % 2"), 1);
  EXPECT_EQ(value_of("128 % 64"), 0);
}

TEST(DimExpression, MinAndMaxTakeTwoArgumentsAndNest) {
  EXPECT_EQ(value_of("min(3, 5)"), 3);
  EXPECT_EQ(value_of("max(3, 5)"), 5);
  EXPECT_EQ(value_of("min(max(rows, 4), 16)", kRows, {2}), 4);
  EXPECT_EQ(value_of("min(max(rows, 4), 16)", kRows, {100}), 16);
  EXPECT_EQ(value_of("max ( 1 , min(rows + 1, 2 * rows) ) * 2", kRows, {3}), 8);
}

TEST(DimExpression, ReadsDimValuesInTheOrderOfTheDims) {
  const DimExpression expression = DimExpression::parse("rows * 1000 + cols", kRowsCols);
  EXPECT_TRUE(expression.uses_dims());
  EXPECT_EQ(expression.evaluate(std::vector<int64_t>{7, 3}), 7003);
  EXPECT_EQ(expression.evaluate(std::vector<int64_t>{3, 7}), 3007);
  EXPECT_EQ(value_of("2*rows*1000", kRows, {5}), 10000);
}

TEST(DimExpression, KeepsItsTextTrimmedAsWritten) {
  EXPECT_EQ(DimExpression::parse("  (rows +63)/ 64\t", kRows).text(), "(rows +63)/ 64");
}

TEST(DimExpression, AcceptsWhitespaceAnywhereBetweenTokens) {
  EXPECT_EQ(value_of("\t( rows\n+ 63 ) /64 ", kRows, {65}), 2);
}

TEST(DimExpression, IsCopyable) {
  const DimExpression original = DimExpression::parse("rows + 1", kRows);
  const DimExpression copy = original;
  EXPECT_EQ(copy.evaluate(std::vector<int64_t>{4}), 5);
  EXPECT_EQ(copy.text(), "rows + 1");
}

TEST(DimExpressionParse, RejectsAnUnknownNameListingTheOpsDims) {
  EXPECT_THAT(parse_error("rows + cols"),
              AllOf(HasSubstr("unknown name 'cols' (the op's dims: rows)"), HasSubstr("at character 8")));
  EXPECT_THAT(parse_error("n", kNoDims), HasSubstr("(the op has no dims)"));
}

TEST(DimExpressionParse, RejectsUnaryMinusWithAReason) {
  EXPECT_THAT(parse_error("-1"), AllOf(HasSubstr("unary minus is not supported"), HasSubstr("character 1")));
  EXPECT_THAT(parse_error("rows * -1"), HasSubstr("unary minus is not supported"));
}

TEST(DimExpressionParse, RejectsATrailingOperatorSayingAnOperandWasExpected) {
  EXPECT_THAT(parse_error("rows +"),
              AllOf(HasSubstr("after '+'"), HasSubstr("found the end of the expression")));
  EXPECT_THAT(parse_error("rows * / 2"), HasSubstr("found '/'"));
}

TEST(DimExpressionParse, RejectsAnEmptyExpression) {
  EXPECT_THAT(parse_error(""), HasSubstr("empty expression"));
  EXPECT_THAT(parse_error("   "), HasSubstr("empty expression"));
  EXPECT_THAT(parse_error("()"), HasSubstr("found ')'"));
}

TEST(DimExpressionParse, RejectsUnbalancedParentheses) {
  EXPECT_THAT(parse_error("(rows + 63 / 64"),
              AllOf(HasSubstr("unbalanced parenthesis"), HasSubstr("character 1")));
  EXPECT_THAT(parse_error("rows + 63) / 64"),
              AllOf(HasSubstr("unbalanced parenthesis"), HasSubstr("has no matching '('"),
                    HasSubstr("character 10")));
  EXPECT_THAT(parse_error("min(rows, 4"), HasSubstr("unbalanced parenthesis"));
}

TEST(DimExpressionParse, RejectsTwoOperandsWithoutAnOperator) {
  EXPECT_THAT(parse_error("rows 64"), AllOf(HasSubstr("expected an operator"), HasSubstr("found '64'")));
  EXPECT_THAT(parse_error("64rows"), HasSubstr("a number runs into a name"));
}

TEST(DimExpressionParse, MinAndMaxNeedParenthesesAndExactlyTwoArguments) {
  EXPECT_THAT(parse_error("min"), HasSubstr("min needs its two arguments in parentheses"));
  EXPECT_THAT(parse_error("max(rows)"), HasSubstr("max takes two arguments separated by a comma"));
  EXPECT_THAT(parse_error("min(rows, 1, 2)"), HasSubstr("min takes exactly two arguments"));
  EXPECT_THAT(parse_error("min(rows 1)"), HasSubstr("expected an operator (+ - * / %) or ','"));
}

TEST(DimExpressionParse, RejectsCharactersOutsideTheLanguage) {
  EXPECT_THAT(parse_error("rows << 2"),
              AllOf(HasSubstr("unexpected character '<'"), HasSubstr("character 6")));
  EXPECT_THAT(parse_error(std::string("rows\x01")), HasSubstr("unexpected character '\\x01'"));
  EXPECT_THAT(parse_error("rows, 2"), HasSubstr("found ','"));
  EXPECT_THAT(parse_error("rows\n# 2"), AllOf(HasSubstr("`rows\\n# 2`"), Not(HasSubstr("\n"))))
      << "a message stays on one line";
}

TEST(DimExpressionParse, RejectsALiteralAboveInt64) {
  EXPECT_THAT(parse_error("9223372036854775808"), HasSubstr("above the int64 maximum 9223372036854775807"));
}

TEST(DimExpressionParse, RejectsDeepNestingWithoutCrashing) {
  EXPECT_THAT(parse_error(std::string(64, '(') + "1" + std::string(64, ')')),
              HasSubstr("parentheses nested deeper than 32 levels"));
  EXPECT_THAT(parse_error(std::string(2000, '(')), HasSubstr("parentheses nested deeper than 32 levels"));
  std::string nested_calls;
  for (int i = 0; i < 40; ++i) nested_calls += "min(rows, ";
  EXPECT_THAT(parse_error(nested_calls), HasSubstr("parentheses nested deeper than 32 levels"));
  EXPECT_EQ(value_of(std::string(32, '(') + "1" + std::string(32, ')')), 1);
}

TEST(DimExpressionParse, RejectsTextLongerThan4096Characters) {
  EXPECT_THAT(parse_error(std::string(100 * 1024, '(')),
              HasSubstr("the expression is 102400 characters long; at most 4096 are allowed"));
  std::string sum = "1";
  while (sum.size() < 4090) sum += " + 1";
  EXPECT_EQ(value_of(sum), static_cast<int64_t>((sum.size() + 3) / 4));
}

TEST(DimExpressionParse, QuotesAtMostAShortPieceOfARunawayText) {
  std::string text(4000, '1');
  text += " $";
  EXPECT_LT(parse_error(text).size(), 600u);
}

TEST(DimExpressionEvaluate, RejectsDivisionByZeroNamingTheExpressionAndTheDims) {
  EXPECT_THAT(evaluate_error("(rows + 63) / (rows - 5)", kRows, {5}),
              AllOf(HasSubstr("`(rows + 63) / (rows - 5)` at rows=5"), HasSubstr("division by zero"),
                    HasSubstr("`(rows - 5)` is 0")));
  EXPECT_THAT(evaluate_error("rows % cols", kRowsCols, {3, 0}),
              AllOf(HasSubstr("at rows=3, cols=0"), HasSubstr("modulo by zero")));
}

TEST(DimExpressionEvaluate, RejectsOverflowOfInt64) {
  EXPECT_THAT(evaluate_error("rows * rows * rows * rows", kRows, {int64_t{1} << 20}),
              AllOf(HasSubstr("at rows=1048576"), HasSubstr("overflows int64")));
  EXPECT_THAT(evaluate_error("9223372036854775807 + rows", kRows, {1}), HasSubstr("overflows int64"));
}

TEST(DimExpressionEvaluate, RejectsANegativeResult) {
  EXPECT_THAT(evaluate_error("rows - 64", kRows, {5}),
              AllOf(HasSubstr("`rows - 64` at rows=5"), HasSubstr("is -59"), HasSubstr("never go negative")));
  EXPECT_THAT(evaluate_error("(rows - 64) / 64 + 1", kRows, {5}), HasSubstr("`rows - 64` is -59"));
  EXPECT_EQ(evaluate_error("rows - 64 + 64", kRows, {64}), "");
}

TEST(DimExpressionEvaluate, RejectsANegativeDimValue) {
  EXPECT_THAT(evaluate_error("rows + 1", kRows, {-3}), HasSubstr("dim rows is negative"));
}

TEST(DimExpressionEvaluate, RejectsAWrongNumberOfDimValues) {
  const DimExpression expression = DimExpression::parse("rows", kRowsCols);
  EXPECT_THROW(expression.evaluate(std::vector<int64_t>{1}), std::invalid_argument);
}

TEST(GridExpression, SplitsALineIntoThreeExpressions) {
  const GridExpression grid = GridExpression::parse("(rows + 63) / 64 1 1", kRows);
  EXPECT_EQ(grid.extents()[0].text(), "(rows + 63) / 64");
  EXPECT_EQ(grid.extents()[1].text(), "1");
  EXPECT_EQ(grid.extents()[2].text(), "1");
  EXPECT_TRUE(grid.uses_dims());
  const Grid at_100 = grid.evaluate(std::vector<int64_t>{100});
  EXPECT_EQ(at_100.x, 2u);
  EXPECT_EQ(at_100.y, 1u);
  EXPECT_EQ(at_100.z, 1u);
}

TEST(GridExpression, SplitsConstantsAndCallsAndProducts) {
  const GridExpression constants = GridExpression::parse("1 2 3", kRows);
  EXPECT_FALSE(constants.uses_dims());
  const Grid one_two_three = constants.evaluate(std::vector<int64_t>{0});
  EXPECT_EQ(std::vector<uint32_t>({one_two_three.x, one_two_three.y, one_two_three.z}),
            std::vector<uint32_t>({1, 2, 3}));

  const GridExpression calls = GridExpression::parse("min(rows, 4) rows*2 1", kRows);
  EXPECT_EQ(calls.text(), "min(rows, 4) rows*2 1");
  const Grid at_10 = calls.evaluate(std::vector<int64_t>{10});
  EXPECT_EQ(std::vector<uint32_t>({at_10.x, at_10.y, at_10.z}), std::vector<uint32_t>({4, 20, 1}));

  const GridExpression halves = GridExpression::parse("(rows+1)/2 (rows + 3) / 4 1", kRows);
  EXPECT_EQ(halves.extents()[0].text(), "(rows+1)/2");
  EXPECT_EQ(halves.extents()[1].text(), "(rows + 3) / 4");
  const Grid at_9 = halves.evaluate(std::vector<int64_t>{9});
  EXPECT_EQ(std::vector<uint32_t>({at_9.x, at_9.y, at_9.z}), std::vector<uint32_t>({5, 3, 1}));
}

TEST(GridExpression, TextHasSingleSpacesBetweenTheExtents) {
  EXPECT_EQ(GridExpression::parse("  rows   2\t 3 ", kRows).text(), "rows 2 3");
}

TEST(GridExpression, RejectsTwoOrFourExpressions) {
  EXPECT_THAT(grid_parse_error("(rows + 63) / 64 1"),
              HasSubstr("expected three expressions (x y z), found 2"));
  EXPECT_THAT(grid_parse_error("1 1 1 1"), HasSubstr("expected three expressions (x y z), found 4"));
  EXPECT_THAT(grid_parse_error(""), HasSubstr("found 0"));
}

TEST(GridExpression, PassesOnAnExpressionsOwnError) {
  EXPECT_THAT(grid_parse_error("rows + 1 cols 1"), HasSubstr("unknown name 'cols'"));
  EXPECT_THAT(grid_parse_error("rows) 1 1"), HasSubstr("unbalanced parenthesis"));
  EXPECT_THAT(grid_parse_error("rows + 1 1"), HasSubstr("found 2"));
  EXPECT_THAT(grid_parse_error("rows 1 1 +"), HasSubstr("found the end of the expression"));
  EXPECT_THAT(grid_parse_error("rows, 1 1"), HasSubstr("found ','"));
}

TEST(GridExpression, RejectsAZeroExtentWithTheRoundUpHint) {
  EXPECT_THAT(grid_evaluate_error("rows / 64 1 1", kRows, {5}),
              AllOf(HasSubstr("dispatch extent x"), HasSubstr("`rows / 64` at rows=5 is 0"),
                    HasSubstr("round up: (rows + 63) / 64")));
  EXPECT_THAT(grid_evaluate_error("1 rows / cols 1", kRowsCols, {5, 8}),
              AllOf(HasSubstr("dispatch extent y"), HasSubstr("round up: (rows + cols - 1) / cols")));
  EXPECT_THAT(grid_evaluate_error("1 1 rows", kRows, {0}),
              AllOf(HasSubstr("dispatch extent z"), HasSubstr("at least one workgroup")));
}

TEST(GridExpression, RejectsAnExtentAbove2To32Minus1) {
  EXPECT_THAT(grid_evaluate_error("rows 1 1", kRows, {int64_t{1} << 32}),
              AllOf(HasSubstr("is 4294967296"), HasSubstr("2^32-1")));
  const Grid largest = GridExpression::parse("rows 1 1", kRows).evaluate(std::vector<int64_t>{UINT32_MAX});
  EXPECT_EQ(largest.x, UINT32_MAX);
}

TEST(GridExpression, NamesTheExtentWhenAnExpressionFailsToEvaluate) {
  EXPECT_THAT(grid_evaluate_error("1 1 64 / rows", kRows, {0}),
              AllOf(HasSubstr("dispatch extent z"), HasSubstr("division by zero"), HasSubstr("at rows=0")));
}

TEST(GridExpression, RejectsDeepNestingWithoutCrashing) {
  EXPECT_THAT(grid_parse_error(std::string(4096, '(')), HasSubstr("nested deeper"));
  EXPECT_THAT(grid_parse_error(std::string(100 * 1024, '(')), HasSubstr("at most 4096"));
}

}  // namespace
}  // namespace kernelgen
