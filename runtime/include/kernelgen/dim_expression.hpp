#pragma once
// Integer expressions over an op's symbolic dims, as kernel contract v2 writes them: the launch grid on a
// kernel's `// kernelgen: dispatch (rows + 63) / 64 1 1` line and an op's FLOPS (`2*rows*1000`). Generated
// wrappers evaluate them at call time, so they live in the runtime and need only the standard library.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernelgen/grid.hpp"

namespace kernelgen {

// One integer expression over an op's symbolic dims: decimal literals, dim names, + - * / %, parentheses,
// min(a, b), max(a, b). Evaluated in signed 64-bit; / and % of non-negative operands floor.
class DimExpression {
 public:
  // Parses all of `text`. Identifiers must be among `dims` (the op's dim names in order). Throws
  // std::invalid_argument with a one-line reason a person or an LLM can act on (what was expected, at which
  // character, e.g. "unknown name 'cols' (the op's dims: rows)", "unbalanced parenthesis", "empty
  // expression").
  static DimExpression parse(std::string_view text, std::span<const std::string> dims);
  // values[i] is dims[i]'s value. Throws std::domain_error naming the expression and the dim values on
  // division or modulo by zero, on overflow of int64, and on a negative intermediate or final result. Throws
  // std::invalid_argument when values does not hold one value per dim.
  int64_t evaluate(std::span<const int64_t> values) const;
  bool uses_dims() const;           // false for a constant expression
  const std::string& text() const;  // the expression as written, trimmed

 private:
  friend class GridExpression;
  class Parser;  // dim_expression.cpp

  // One step of the expression in postfix order, so evaluating it needs no recursion. Offsets are into text_:
  // [begin, end) is the text this step computes, [outer_begin, outer_end) the same with the parentheses
  // around it, and split is where a binary step's left operand ends (begin for other steps); they make errors
  // quote the culprit.
  struct Step {
    enum class Kind : uint8_t { kLiteral, kDim, kAdd, kSubtract, kMultiply, kDivide, kModulo, kMin, kMax };
    Kind kind;
    int64_t value;  // the literal, or the dim's index
    uint32_t begin, end, outer_begin, outer_end, split;
  };

  DimExpression() = default;
  // "`rows / 64` at rows=5": the expression and the values of the dims it uses.
  std::string described(std::span<const int64_t> values) const;
  // For an extent that came out 0: how to round its top-level division up, or "" when it has none.
  std::string round_up_hint() const;

  std::string text_;
  std::vector<std::string> dims_;
  std::vector<Step> steps_;
};

// The three extents of a dispatch line. parse() splits `text` into exactly three expressions: an expression
// ends where the next token cannot continue it (after a complete operand, a number, a name or '(' starts the
// next one), so "(rows + 63) / 64 1 1" is three. Throws std::invalid_argument ("expected three expressions
// (x y z), found 2", or the expression's own error).
class GridExpression {
 public:
  // One workgroup: "1 1 1".
  GridExpression() : GridExpression(parse("1 1 1", {})) {}
  static GridExpression parse(std::string_view text, std::span<const std::string> dims);
  // The grid at these dim values; throws std::domain_error when an extent is 0 (saying e.g. "round up:
  // (rows + 63) / 64") or above 2^32-1, or when an expression fails to evaluate.
  Grid evaluate(std::span<const int64_t> values) const;
  const std::array<DimExpression, 3>& extents() const;
  bool uses_dims() const;
  std::string text() const;  // "x y z" as written, single spaces between the three

 private:
  explicit GridExpression(std::array<DimExpression, 3> extents) : extents_(std::move(extents)) {}

  std::array<DimExpression, 3> extents_;
};

}  // namespace kernelgen
