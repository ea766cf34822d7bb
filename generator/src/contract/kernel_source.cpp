#include "kernelgen/contract/kernel_source.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace kernelgen {

namespace {

// Scanned by hand rather than with std::regex: libstdc++'s matcher recurses once per character and overflows
// the stack on a line of ~100 KB, which a hostile or runaway completion can easily hold.

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)); }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void skip_spaces(const std::string& text, size_t* at) {
  while (*at < text.size() && is_space(text[*at])) ++*at;
}

bool skip_word(const std::string& text, size_t* at, const std::string& word) {
  if (text.compare(*at, word.size(), word) != 0) return false;
  *at += word.size();
  return true;
}

// Where the text after `//\s*kernelgen\s*:\s*dispatch\b` starts on this line, or npos.
size_t after_marker(const std::string& line) {
  for (size_t slashes = line.find("//"); slashes != std::string::npos; slashes = line.find("//", slashes + 1)) {
    size_t at = slashes + 2;
    skip_spaces(line, &at);
    if (!skip_word(line, &at, "kernelgen")) continue;
    skip_spaces(line, &at);
    if (!skip_word(line, &at, ":")) continue;
    skip_spaces(line, &at);
    if (!skip_word(line, &at, "dispatch")) continue;
    if (at < line.size() && is_word(line[at])) continue;
    return at;
  }
  return std::string::npos;
}

// The offending line as quoted in an error: a runaway line is cut, so the message stays readable.
std::string quoted_line(const std::string& line) {
  constexpr size_t kLongest = 200;
  return "`" + (line.size() <= kLongest ? line : line.substr(0, kLongest) + "...") + "`";
}

}  // namespace

std::optional<GridExpression> parse_dispatch_line(const std::string& source, std::span<const std::string> dims,
                                                  std::string* error) {
  std::istringstream lines(source);
  std::string line;
  std::optional<GridExpression> found;
  int number = 0;
  const std::string form = dims.empty() ? "`// kernelgen: dispatch X Y Z` with three positive integers"
                                        : "`// kernelgen: dispatch X Y Z` with three integer expressions over the dims "
                                          "(+ - * / %, parentheses, min, max), e.g. `// kernelgen: dispatch (" +
                                              dims[0] + " + 63) / 64 1 1`";
  while (std::getline(lines, line)) {
    ++number;
    const size_t rest = after_marker(line);
    if (rest == std::string::npos) continue;
    if (found) {
      *error = "line " + std::to_string(number) + ": a second `// kernelgen: dispatch` line; keep exactly one";
      return std::nullopt;
    }
    try {
      found = GridExpression::parse(std::string_view(line).substr(rest), dims);
    } catch (const std::invalid_argument& problem) {
      *error = "line " + std::to_string(number) + ": " + problem.what() + "; expected " + form + ", got " +
               quoted_line(line);
      return std::nullopt;
    }
    if (!dims.empty()) continue;
    // Without dims the grid is constant: check it now, as a kernel of contract 1 always was.
    try {
      found->evaluate({});
    } catch (const std::domain_error& problem) {
      *error = "line " + std::to_string(number) + ": " + problem.what();
      return std::nullopt;
    }
  }
  if (!found) *error = "no line declares the number of workgroups to launch; add " + form;
  return found;
}

}  // namespace kernelgen
