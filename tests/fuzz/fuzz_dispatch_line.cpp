// The `// kernelgen: dispatch X Y Z` line on any kernel source, including runaway lines of megabytes.
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "kernelgen/kernel_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  const std::string source(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto grid = kernelgen::parse_dispatch_line(source, &error);
  if (grid) {
    require(grid->x > 0 && grid->y > 0 && grid->z > 0, "a grid has positive extents");
  } else {
    require(!error.empty(), "a failure says why");
    require(error.size() < 512, "an error quotes at most a short piece of the line");
  }
  return 0;
}
