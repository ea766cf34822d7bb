#include "kernelgen/dim_expression.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace kernelgen {

namespace {

// Scanned and parsed by hand rather than with std::regex, whose libstdc++ matcher recurses once per character
// and overflows the stack on long input; the parser recurses once per parenthesis, so nesting is capped.
constexpr size_t kLongestText = 4096;
constexpr int kDeepestNesting = 32;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || is_digit(c);
}

// A control character as an error shows it: escaped, so the message stays on one line.
std::string shown(char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    default:
      break;
  }
  if (c >= 0x20 && c < 0x7f) return std::string(1, c);
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
  return hex;
}

// A piece of the input as quoted in an error: cut at about `longest` characters when it runs away and with control characters escaped, so
// the message stays one readable line. Built by appending, since GCC 12 misreports `"literal" +
// std::string&&` under -O3 (-Wrestrict).
std::string escaped(std::string_view text, size_t longest = 200) {
  std::string out;
  size_t used = 0;
  // Cut by what is shown, not by what was read: an escaped byte takes four characters.
  for (; used < text.size() && out.size() < longest; ++used) out.append(shown(text[used]));
  if (used < text.size()) out.append("...");
  return out;
}

std::string quoted_piece(std::string_view text, char mark = '`', size_t longest = 200) {
  std::string out(1, mark);
  out.append(escaped(text, longest));
  out.push_back(mark);
  return out;
}

enum class TokenKind { kEnd, kNumber, kName, kPlus, kMinus, kStar, kSlash, kPercent, kOpen, kClose, kComma };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  size_t begin = 0, end = 0;
  int64_t value = 0;
};

constexpr const char* kOperand = "a number, a dim name, min(a, b), max(a, b) or '('";

}  // namespace

// Recursive descent over a token stream scanned on demand: sum := product (('+' | '-') product)*,
// product := operand (('*' | '/' | '%') operand)*, operand := number | dim | min/max '(' sum ',' sum ')' |
// '(' sum ')'. Steps come out in postfix order; positions in errors count characters of the whole input.
class DimExpression::Parser {
 public:
  Parser(std::string_view text, std::span<const std::string> dims) : text_(text), dims_(dims) {
    // Whitespace around the expression is not part of it (a line may pad the grid with any amount of it).
    const size_t first = text.find_first_not_of(" \t\r\n\v\f");
    const size_t length = first == std::string_view::npos ? 0 : text.find_last_not_of(" \t\r\n\v\f") + 1 - first;
    if (length > kLongestText) {
      throw std::invalid_argument("the expression is " + std::to_string(length) +
                                  " characters long; at most " + std::to_string(kLongestText) +
                                  " are allowed");
    }
    advance();
  }

  bool at_end() const { return token_.kind == TokenKind::kEnd; }
  bool at_operand() const {
    return token_.kind == TokenKind::kNumber || token_.kind == TokenKind::kName ||
           token_.kind == TokenKind::kOpen;
  }

  // One complete expression from the current token on, stopping at the first token that cannot continue it.
  DimExpression expression() {
    steps_.clear();
    const size_t begin = token_.begin;
    sum();
    const size_t end = previous_.end;
    DimExpression parsed;
    parsed.text_ = std::string(text_.substr(begin, end - begin));
    parsed.dims_.assign(dims_.begin(), dims_.end());
    parsed.steps_ = steps_;
    for (Step& step : parsed.steps_) {
      for (uint32_t* offset : {&step.begin, &step.end, &step.outer_begin, &step.outer_end, &step.split}) {
        *offset -= static_cast<uint32_t>(begin);
      }
    }
    return parsed;
  }

  // The current token cannot come next; `expected` says what could have.
  [[noreturn]] void unexpected(const std::string& expected) const {
    if (token_.kind == TokenKind::kClose && opens_.empty()) {
      fail("unbalanced parenthesis: this ')' has no matching '('", token_.begin);
    }
    if (token_.kind == TokenKind::kEnd && !opens_.empty()) {
      fail("unbalanced parenthesis: this '(' is never closed", opens_.back());
    }
    fail("expected " + expected + ", found " + found(), token_.begin);
  }

  [[noreturn]] void fail(const std::string& reason, size_t at) const {
    throw std::invalid_argument(quoted_piece(text_) + " at character " + std::to_string(at + 1) + ": " +
                                reason);
  }

 private:
  void advance() {
    has_previous_ = token_.end > 0;
    previous_ = token_;
    size_t at = token_.end;
    while (at < text_.size() && is_space(text_[at])) ++at;
    token_ = Token{TokenKind::kEnd, at, at, 0};
    if (at == text_.size()) return;
    const char c = text_[at];
    if (is_digit(c)) {
      scan_number(at);
    } else if (is_name_start(c)) {
      size_t end = at;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      token_ = Token{TokenKind::kName, at, end, 0};
    } else {
      static constexpr std::pair<char, TokenKind> kSingles[] = {
          {'+', TokenKind::kPlus},  {'-', TokenKind::kMinus},   {'*', TokenKind::kStar},
          {'/', TokenKind::kSlash}, {'%', TokenKind::kPercent}, {'(', TokenKind::kOpen},
          {')', TokenKind::kClose}, {',', TokenKind::kComma}};
      const auto* single = std::find_if(std::begin(kSingles), std::end(kSingles),
                                        [c](const auto& entry) { return entry.first == c; });
      if (single == std::end(kSingles)) {
        fail("unexpected character " + quoted_piece(std::string_view(&c, 1), '\'') +
                 " (expressions hold numbers, dim names, + - * / %, parentheses, min(a, b) and max(a, b))",
             at);
      }
      token_ = Token{single->second, at, at + 1, 0};
    }
  }

  void scan_number(size_t begin) {
    size_t end = begin;
    int64_t value = 0;
    bool too_large = false;
    for (; end < text_.size() && is_digit(text_[end]); ++end) {
      too_large = too_large || __builtin_mul_overflow(value, 10, &value) ||
                  __builtin_add_overflow(value, text_[end] - '0', &value);
    }
    if (end < text_.size() && is_name_char(text_[end])) {
      size_t name_end = end;
      while (name_end < text_.size() && is_name_char(text_[name_end])) ++name_end;
      fail("a number runs into a name in " + quoted_piece(text_.substr(begin, name_end - begin), '\'', 60) +
               "; put an operator between them",
           begin);
    }
    if (too_large) {
      fail("the number " + quoted_piece(text_.substr(begin, end - begin), '\'', 60) +
               " is above the int64 maximum " + std::to_string(std::numeric_limits<int64_t>::max()),
           begin);
    }
    token_ = Token{TokenKind::kNumber, begin, end, value};
  }

  std::string found() const {
    if (token_.kind == TokenKind::kEnd) return "the end of the expression";
    return quoted_piece(text_.substr(token_.begin, token_.end - token_.begin), '\'', 60);
  }

  void sum() {
    product();
    while (token_.kind == TokenKind::kPlus || token_.kind == TokenKind::kMinus) {
      const Step::Kind kind = token_.kind == TokenKind::kPlus ? Step::Kind::kAdd : Step::Kind::kSubtract;
      const Step left = steps_.back();
      advance();
      product();
      binary(kind, left);
    }
  }

  void product() {
    operand();
    while (token_.kind == TokenKind::kStar || token_.kind == TokenKind::kSlash ||
           token_.kind == TokenKind::kPercent) {
      const Step::Kind kind = token_.kind == TokenKind::kStar    ? Step::Kind::kMultiply
                              : token_.kind == TokenKind::kSlash ? Step::Kind::kDivide
                                                                 : Step::Kind::kModulo;
      const Step left = steps_.back();
      advance();
      operand();
      binary(kind, left);
    }
  }

  void binary(Step::Kind kind, const Step& left) {
    const uint32_t end = steps_.back().outer_end;
    steps_.push_back(Step{kind, 0, left.outer_begin, end, left.outer_begin, end, left.outer_end});
  }

  void operand() {
    const Token token = token_;
    switch (token.kind) {
      case TokenKind::kNumber:
        advance();
        leaf(Step::Kind::kLiteral, token.value, token);
        return;
      case TokenKind::kName:
        name(token);
        return;
      case TokenKind::kOpen: {
        open();
        sum();
        const Token closing = close();
        steps_.back().outer_begin = static_cast<uint32_t>(token.begin);
        steps_.back().outer_end = static_cast<uint32_t>(closing.end);
        return;
      }
      case TokenKind::kMinus:
        fail("unary minus is not supported (a dim expression is never negative); expected " +
                 std::string(kOperand) + ", found '-'",
             token.begin);
      default:
        break;
    }
    if (token.kind == TokenKind::kEnd && !has_previous_) throw std::invalid_argument("empty expression");
    std::string expected = kOperand;
    if (has_previous_) {
      expected +=
          " after " + quoted_piece(text_.substr(previous_.begin, previous_.end - previous_.begin), '\'', 60);
    }
    fail("expected " + expected + ", found " + found(), token.begin);
  }

  void name(const Token& token) {
    const std::string_view word = text_.substr(token.begin, token.end - token.begin);
    if (word == "min" || word == "max") {
      call(token, word == "min" ? Step::Kind::kMin : Step::Kind::kMax);
      return;
    }
    const auto dim = std::find(dims_.begin(), dims_.end(), word);
    if (dim == dims_.end()) {
      std::string known;
      for (const std::string& each : dims_) {
        if (!known.empty()) known.append(", ");
        known.append(each);
      }
      fail("unknown name " + quoted_piece(word, '\'', 60) + " " +
               (dims_.empty() ? "(the op has no dims)" : "(the op's dims: " + escaped(known) + ")"),
           token.begin);
    }
    advance();
    leaf(Step::Kind::kDim, dim - dims_.begin(), token);
  }

  void call(const Token& function, Step::Kind kind) {
    const std::string word(text_.substr(function.begin, function.end - function.begin));
    advance();
    if (token_.kind != TokenKind::kOpen) {
      fail(word + " needs its two arguments in parentheses: " + word + "(a, b)", function.begin);
    }
    open();
    sum();
    if (token_.kind == TokenKind::kClose) {
      fail(word + " takes two arguments separated by a comma, found one: " + word + "(a, b)", token_.begin);
    }
    if (token_.kind != TokenKind::kComma) unexpected("an operator (+ - * / %) or ','");
    advance();
    sum();
    if (token_.kind == TokenKind::kComma) {
      fail(word + " takes exactly two arguments, found more: " + word + "(a, b)", token_.begin);
    }
    const Token closing = close();
    const auto begin = static_cast<uint32_t>(function.begin), end = static_cast<uint32_t>(closing.end);
    steps_.push_back(Step{kind, 0, begin, end, begin, end, begin});
  }

  void open() {
    if (opens_.size() >= static_cast<size_t>(kDeepestNesting)) {
      fail("parentheses nested deeper than " + std::to_string(kDeepestNesting) + " levels", token_.begin);
    }
    opens_.push_back(token_.begin);
    advance();
  }

  Token close() {
    if (token_.kind != TokenKind::kClose) unexpected("an operator (+ - * / %) or ')'");
    const Token closing = token_;
    opens_.pop_back();
    advance();
    return closing;
  }

  void leaf(Step::Kind kind, int64_t value, const Token& token) {
    const auto begin = static_cast<uint32_t>(token.begin), end = static_cast<uint32_t>(token.end);
    steps_.push_back(Step{kind, value, begin, end, begin, end, begin});
  }

  std::string_view text_;
  std::span<const std::string> dims_;
  Token token_, previous_;
  bool has_previous_ = false;  // previous_ is a token of the text, not the start
  std::vector<size_t> opens_;  // where each '(' still open starts
  std::vector<Step> steps_;
};

DimExpression DimExpression::parse(std::string_view text, std::span<const std::string> dims) {
  Parser parser(text, dims);
  DimExpression parsed = parser.expression();
  if (!parser.at_end()) parser.unexpected("an operator (+ - * / %) or the end of the expression");
  return parsed;
}

int64_t DimExpression::evaluate(std::span<const int64_t> values) const {
  if (values.size() != dims_.size()) {
    throw std::invalid_argument(quoted_piece(text_) + " takes " + std::to_string(dims_.size()) +
                                " dim values, one per dim, got " + std::to_string(values.size()));
  }
  const auto fail = [&](const std::string& reason) {
    throw std::domain_error(described(values) + ": " + reason);
  };
  const auto piece = [&](uint32_t begin, uint32_t end) {
    return quoted_piece(text_.substr(begin, end - begin));
  };
  std::vector<int64_t> stack;
  stack.reserve(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    if (step.kind == Step::Kind::kLiteral) {
      stack.push_back(step.value);
      continue;
    }
    if (step.kind == Step::Kind::kDim) {
      const int64_t value = values[static_cast<size_t>(step.value)];
      if (value < 0) fail("dim " + dims_[static_cast<size_t>(step.value)] + " is negative");
      stack.push_back(value);
      continue;
    }
    // A binary step's right operand is what the step just before it computed.
    const Step& right_step = steps_[i - 1];
    const int64_t right = stack.back();
    stack.pop_back();
    const int64_t left = stack.back();
    int64_t result = 0;
    bool overflow = false;
    switch (step.kind) {
      case Step::Kind::kAdd:
        overflow = __builtin_add_overflow(left, right, &result);
        break;
      case Step::Kind::kSubtract:
        result = left - right;
        if (result < 0) {
          fail(piece(step.begin, step.end) + " is " + std::to_string(result) +
               ", and a dim expression must never go negative");
        }
        break;
      case Step::Kind::kMultiply:
        overflow = __builtin_mul_overflow(left, right, &result);
        break;
      case Step::Kind::kDivide:
      case Step::Kind::kModulo:
        if (right == 0) {
          fail(std::string(step.kind == Step::Kind::kDivide ? "division" : "modulo") +
               " by zero: " + piece(right_step.outer_begin, right_step.outer_end) + " is 0");
        }
        result = step.kind == Step::Kind::kDivide ? left / right : left % right;
        break;
      case Step::Kind::kMin:
        result = std::min(left, right);
        break;
      case Step::Kind::kMax:
        result = std::max(left, right);
        break;
      case Step::Kind::kLiteral:
      case Step::Kind::kDim:
        break;
    }
    if (overflow) {
      fail(piece(step.begin, step.end) + " overflows int64 (" + std::to_string(left) +
           (step.kind == Step::Kind::kAdd ? " + " : " * ") + std::to_string(right) + ")");
    }
    stack.back() = result;
  }
  return stack.back();
}

bool DimExpression::uses_dims() const {
  return std::any_of(steps_.begin(), steps_.end(),
                     [](const Step& step) { return step.kind == Step::Kind::kDim; });
}

const std::string& DimExpression::text() const {
  return text_;
}

std::string DimExpression::described(std::span<const int64_t> values) const {
  std::string out = quoted_piece(text_);
  for (size_t i = 0, listed = 0; i < dims_.size() && i < values.size(); ++i) {
    const bool used = std::any_of(steps_.begin(), steps_.end(), [i](const Step& step) {
      return step.kind == Step::Kind::kDim && step.value == static_cast<int64_t>(i);
    });
    if (!used) continue;
    out += (listed++ == 0 ? " at " : ", ") + dims_[i] + "=" + std::to_string(values[i]);
  }
  return out;
}

std::string DimExpression::round_up_hint() const {
  const size_t n = steps_.size();
  if (n < 3 || steps_[n - 1].kind != Step::Kind::kDivide) return "";
  // Divisor and dividend: the right operand is the step before, and a literal one leaves the left's root
  // just before it.
  const Step& divisor = steps_[n - 2];
  const std::string by = escaped(text_.substr(divisor.outer_begin, divisor.outer_end - divisor.outer_begin));
  std::string dividend =
      escaped(text_.substr(steps_[n - 1].begin, steps_[n - 1].split - steps_[n - 1].begin));
  if (divisor.kind == Step::Kind::kLiteral) {
    if (divisor.value < 2) return "";
    const Step& left = steps_[n - 3];
    dividend = escaped(text_.substr(left.begin, left.end - left.begin));
    return "round up: (" + dividend + " + " + std::to_string(divisor.value - 1) + ") / " + by;
  }
  return "round up: (" + dividend + " + " + by + " - 1) / " + by;
}

GridExpression GridExpression::parse(std::string_view text, std::span<const std::string> dims) {
  DimExpression::Parser parser(text, dims);
  std::vector<DimExpression> found;
  while (!parser.at_end()) {
    found.push_back(parser.expression());
    if (!parser.at_end() && !parser.at_operand()) {
      parser.unexpected("an operator (+ - * / %), the next expression or the end of the line");
    }
  }
  if (found.size() != 3) {
    throw std::invalid_argument("expected three expressions (x y z), found " + std::to_string(found.size()) +
                                (found.empty() ? "" : " in " + quoted_piece(text)));
  }
  return GridExpression({found[0], found[1], found[2]});
}

Grid GridExpression::evaluate(std::span<const int64_t> values) const {
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  uint32_t grid[3];
  for (size_t axis = 0; axis < 3; ++axis) {
    const DimExpression& extent = extents_[axis];
    const std::string which = std::string("dispatch extent ") + kAxes[axis];
    int64_t value = 0;
    try {
      value = extent.evaluate(values);
    } catch (const std::domain_error& error) {
      throw std::domain_error(which + ": " + error.what());
    }
    if (value == 0) {
      const std::string hint = extent.round_up_hint();
      throw std::domain_error(which + ": " + extent.described(values) +
                              " is 0, and a grid needs at least one workgroup along each axis" +
                              (hint.empty() ? "" : "; " + hint));
    }
    if (value > int64_t{UINT32_MAX}) {
      throw std::domain_error(which + ": " + extent.described(values) + " is " + std::to_string(value) +
                              ", above the most workgroups a dispatch can count, 2^32-1");
    }
    grid[axis] = static_cast<uint32_t>(value);
  }
  return Grid{grid[0], grid[1], grid[2]};
}

const std::array<DimExpression, 3>& GridExpression::extents() const {
  return extents_;
}

bool GridExpression::uses_dims() const {
  return std::any_of(extents_.begin(), extents_.end(), [](const DimExpression& e) { return e.uses_dims(); });
}

std::string GridExpression::text() const {
  return extents_[0].text() + " " + extents_[1].text() + " " + extents_[2].text();
}

}  // namespace kernelgen
