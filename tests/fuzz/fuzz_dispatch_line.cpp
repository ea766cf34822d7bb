// The `// kernelgen: dispatch X Y Z` line on any kernel source, including runaway lines of megabytes, for an
// op without dims (a constant grid, checked when read) and for one with dims rows and cols (an expression
// over them, checked when evaluated). The first byte picks which.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "kernelgen/contract/kernel_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  static const std::vector<std::string> kDims{"rows", "cols"};
  const bool with_dims = size > 0 && (data[0] & 1) != 0;
  const std::string source(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto grid = kernelgen::parse_dispatch_line(
      source, with_dims ? std::span<const std::string>(kDims) : std::span<const std::string>(), &error);
  if (!grid) {
    require(!error.empty(), "a failure says why");
    require(error.size() < 1024, "an error quotes at most a short piece of the line");
    return 0;
  }
  require(grid->uses_dims() ? with_dims : true, "a grid uses only the op's dims");
  const std::vector<int64_t> values = with_dims ? std::vector<int64_t>{333, 5} : std::vector<int64_t>{};
  try {
    const kernelgen::Grid g = grid->evaluate(values);
    require(g.x > 0 && g.y > 0 && g.z > 0, "a grid has positive extents");
  } catch (const std::domain_error& problem) {
    require(with_dims, "a constant grid that cannot be launched is refused when read");
    require(std::string(problem.what()).find("dispatch extent") == 0, "an evaluation error names the extent");
  }
  return 0;
}
