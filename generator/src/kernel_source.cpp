#include "kernelgen/kernel_source.hpp"

#include <cctype>
#include <sstream>

namespace kernelgen {

namespace {

// Scanned by hand rather than with std::regex: libstdc++'s matcher recurses once per character and overflows
// the stack on a line of ~100 KB, which a hostile or runaway completion can easily hold.

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
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

// Exactly three runs of 1 to 10 digits separated by whitespace, with optional whitespace around them.
bool parse_extents(const std::string& text, unsigned long extents[3]) {
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t before = at;
    skip_spaces(text, &at);
    if (i > 0 && at == before) return false;
    const size_t digits = at;
    while (at < text.size() && is_digit(text[at])) ++at;
    if (at == digits || at - digits > 10) return false;
    extents[i] = std::stoul(text.substr(digits, at - digits));
  }
  skip_spaces(text, &at);
  return at == text.size();
}

// The offending line as quoted in an error: a runaway line is cut, so the message stays readable.
std::string quoted(const std::string& line) {
  constexpr size_t kLongest = 200;
  return "`" + (line.size() <= kLongest ? line : line.substr(0, kLongest) + "...") + "`";
}

}  // namespace

std::optional<Grid> parse_dispatch_line(const std::string& source, std::string* error) {
  std::istringstream lines(source);
  std::string line;
  std::optional<Grid> found;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const size_t rest = after_marker(line);
    if (rest == std::string::npos) continue;
    unsigned long extents[3];
    if (!parse_extents(line.substr(rest), extents)) {
      *error = "line " + std::to_string(number) + ": expected `// kernelgen: dispatch X Y Z` with three positive "
               "integers, got " + quoted(line);
      return std::nullopt;
    }
    if (found) {
      *error = "line " + std::to_string(number) + ": a second `// kernelgen: dispatch` line; keep exactly one";
      return std::nullopt;
    }
    const unsigned long x = extents[0], y = extents[1], z = extents[2];
    if (x == 0 || y == 0 || z == 0 || x > UINT32_MAX || y > UINT32_MAX || z > UINT32_MAX) {
      *error = "line " + std::to_string(number) + ": dispatch extents must be between 1 and 2^32-1";
      return std::nullopt;
    }
    found = Grid{static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)};
  }
  if (!found) *error = "no `// kernelgen: dispatch X Y Z` line declaring the number of workgroups to launch";
  return found;
}

}  // namespace kernelgen
