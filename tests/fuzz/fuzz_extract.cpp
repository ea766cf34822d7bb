// The fence scanner on whatever a model sends back: binary, NULs, CRs, runaway or nested fences. Every reply
// is answered with a kernel or a reason, never a crash.
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "kernelgen/search/extract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  const std::string completion(reinterpret_cast<const char*>(data), size);
  const auto blocks = kernelgen::scan_code_blocks(completion);
  for (const auto& block : blocks) require(block.code.size() <= completion.size() + 1, "a block is no longer than the reply");
  const auto extraction = kernelgen::extract_kernel(completion);
  if (extraction.ok) {
    require(!blocks.empty() && !extraction.code.empty(), "a kernel comes from a non-empty block");
    require(extraction.error.empty(), "a kernel carries no error");
  } else {
    require(!extraction.error.empty(), "a failure says why");
  }
  return 0;
}
