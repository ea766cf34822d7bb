// Dim expressions and dispatch grids over an op's dims, as an LLM or a person writes them: any text either
// parses or is refused with a short reason, and a parsed one evaluates or is refused with a domain error.
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "kernelgen/dim_expression.hpp"

namespace {

using kernelgen::fuzz::require;

const std::vector<std::string> kDims{"rows", "cols", "batch"};
const std::vector<std::vector<int64_t>> kValues{{0, 0, 0},
                                                {1, 1, 1},
                                                {5, 64, 3},
                                                {int64_t{1} << 20, 1000, 7},
                                                {std::numeric_limits<int64_t>::max(), 2, 1}};

void check_refusal(const std::exception& error) {
  const std::string_view what = error.what();
  require(!what.empty(), "a refusal says why");
  require(what.size() < 1600, "a refusal quotes at most a short piece of the text");
  require(what.find('\n') == std::string_view::npos, "a refusal is one line");
}

void check_expression(const std::string& text) {
  std::optional<kernelgen::DimExpression> expression;
  try {
    expression = kernelgen::DimExpression::parse(text, kDims);
  } catch (const std::invalid_argument& error) {
    check_refusal(error);
    return;
  }
  const kernelgen::DimExpression again = kernelgen::DimExpression::parse(expression->text(), kDims);
  require(again.text() == expression->text(), "an expression's text parses back to itself");
  for (const std::vector<int64_t>& values : kValues) {
    try {
      const int64_t value = expression->evaluate(values);
      require(value >= 0, "an expression evaluates to a non-negative value");
      require(again.evaluate(values) == value, "an expression's text evaluates like the expression");
    } catch (const std::domain_error& error) {
      check_refusal(error);
    }
  }
}

void check_grid(const std::string& text) {
  try {
    const kernelgen::GridExpression grid = kernelgen::GridExpression::parse(text, kDims);
    const kernelgen::GridExpression again = kernelgen::GridExpression::parse(grid.text(), kDims);
    require(again.text() == grid.text(), "a grid's text parses back to the same three extents");
    for (const std::vector<int64_t>& values : kValues) {
      try {
        const kernelgen::Grid extents = grid.evaluate(values);
        require(extents.x > 0 && extents.y > 0 && extents.z > 0, "a grid has positive extents");
      } catch (const std::domain_error& error) {
        check_refusal(error);
      }
    }
  } catch (const std::invalid_argument& error) {
    check_refusal(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_expression(text);
  check_grid(text);
  return 0;
}
