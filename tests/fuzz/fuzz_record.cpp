// The candidate log as `kernelgen list/show/report` load it: one fuzzed c_ record beside a good one. A broken
// record is skipped with a message; it never takes the good one down with it, nor crashes.
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_check.hpp"
#include "kernelgen/store/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kernelgen::fuzz::require;
  namespace fs = std::filesystem;
  static const fs::path directory = [] {
    const fs::path dir = kernelgen::fuzz::scratch_dir() / "candidates";
    fs::create_directories(dir);
    fs::copy_file(fs::path(KERNELGEN_FUZZ_CORPUS_DIR) / "fuzz_record" / "rejected_relu.json",
                  dir / "r_good.json", fs::copy_options::overwrite_existing);
    return dir;
  }();
  kernelgen::fuzz::write(directory / "c_fuzzed.json", data, size);
  const auto records = kernelgen::load_records(directory);
  require(records.size() == 1 || records.size() == 2, "the good record is always loaded, the fuzzed one at most once");
  bool good_loaded = false;
  for (const auto& record : records) good_loaded |= record.value("file", "") == "r_good.json";
  require(good_loaded, "a broken record never hides a good one");
  return 0;
}
