#include "kernelgen/kernel_source.hpp"

#include <regex>
#include <sstream>

namespace kernelgen {

std::optional<Grid> parse_dispatch_line(const std::string& source, std::string* error) {
  static const std::regex marker(R"(//\s*kernelgen\s*:\s*dispatch\b(.*))");
  static const std::regex grid(R"(\s*(\d{1,10})\s+(\d{1,10})\s+(\d{1,10})\s*)");
  std::istringstream lines(source);
  std::string line;
  std::optional<Grid> found;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch match;
    if (!std::regex_search(line, match, marker)) continue;
    const std::string rest = match[1];
    std::smatch extents;
    if (!std::regex_match(rest, extents, grid)) {
      *error = "line " + std::to_string(number) + ": expected `// kernelgen: dispatch X Y Z` with three positive "
               "integers, got `" + line + "`";
      return std::nullopt;
    }
    if (found) {
      *error = "line " + std::to_string(number) + ": a second `// kernelgen: dispatch` line; keep exactly one";
      return std::nullopt;
    }
    const unsigned long x = std::stoul(extents[1]), y = std::stoul(extents[2]), z = std::stoul(extents[3]);
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
