// SPIR-V reflection on any words: a truncated, tampered or hostile kernel.spv is refused with a reason.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

#include "fuzz_check.hpp"
#include "kernelgen/spirv_interface.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  std::string error;
  const auto interface = kernelgen::reflect_spirv(words, &error);
  require(interface.has_value() == kernelgen::reflect_spirv(words, nullptr).has_value(),
          "the answer does not depend on whether an error string is asked for");
  if (!interface) {
    require(!error.empty(), "a refusal says why");
    return 0;
  }
  require(std::is_sorted(interface->bindings.begin(), interface->bindings.end(),
                         [](const auto& a, const auto& b) { return std::tie(a.set, a.binding) < std::tie(b.set, b.binding); }),
          "bindings are sorted by set, then binding");
  return 0;
}
