#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace kernelgen {

struct BuildStepOptions {
  std::filesystem::path spec_path;
  // The op's reference module (kernelgen_add_op's kernelgen_reference_module_<op>); empty: reference.so beside
  // the spec, where kernelgen_add_op builds it.
  std::filesystem::path reference_module;
  std::filesystem::path output;  // the kernel data .cpp to emit; rewritten only when its content changes
  bool regenerate = false;       // search again even when generated/<op>/ is current
  // Run optimisation rounds from the checked-in kernel (kernelgen_optimise_<op>): OPT_ROUNDS of them, or
  // KERNELGEN_OPT_ROUNDS, or 2 where both are 0; the kernel is replaced only by a faster one.
  bool optimise = false;
  bool offline = false;          // KERNELGEN_OFFLINE: never reach a live model
  // Settings given as CMake arguments (KERNELGEN_MODEL, OPENAI_BASE_URL, ...); they win over the environment
  // and the .env file.
  std::map<std::string, std::string> explicit_settings;
  std::filesystem::path dotenv;        // a .env file to read settings from, if it exists
  std::filesystem::path log_dir;       // the candidate log (c_/r_ records)
  std::filesystem::path cassette_dir;  // replay/record: <dir>/<op>.json
  // How many searches run at once beside this one, this one included (kernelgen_regenerate's
  // KERNELGEN_PARALLEL_SEARCHES): without KERNELGEN_VALIDATION_TIMEOUT_S, a validation may take this many times
  // the default limit, since they share the machine.
  int concurrent_searches = 1;
};

// What the build runs for each op: check generated/<op>/ against the spec; when it is missing, stale or
// corrupt (or regenerate is set), search for a kernel (the declared KERNEL, then the configured model) and
// check the fastest correct one in; then emit the wrapper's kernel data. Returns the process exit code and
// prints what it did or why it failed.
int run_build_step(const BuildStepOptions& options);

}  // namespace kernelgen
