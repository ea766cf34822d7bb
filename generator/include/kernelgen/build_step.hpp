#pragma once
#include <filesystem>
#include <string>

namespace kernelgen {

struct BuildStepOptions {
  std::filesystem::path spec_path;
  std::filesystem::path output;  // the kernel data .cpp to emit
  bool regenerate = false;       // ignore a current generated/<op>/ and search again
};

// What the build runs for each op: check generated/<op>/ against the spec; when it is missing, stale or
// corrupt (or regenerate is set), search for a kernel among the candidates (today: the declared KERNEL) and
// check the fastest correct one in; then emit the wrapper's kernel data. Returns the process exit code and
// prints what it did or why it failed.
int run_build_step(const BuildStepOptions& options);

}  // namespace kernelgen
