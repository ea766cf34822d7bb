#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/candidate.hpp"
#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/llm/client.hpp"
#include "kernelgen/price.hpp"
#include "kernelgen/record.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {

struct DeviceInfo;

// Where a search stands, after each candidate: what the build prints as progress.
struct SearchProgress {
  std::string op;
  int round = 0;  // 0: the declared candidates, before any LLM round
  int rounds = 0;
  int samples_done = 0;
  int samples = 0;
  int accepted = 0;
  std::map<std::string, int> rejected;  // by verdict status
  std::optional<double> best_ns;
  int64_t tokens = 0;
  double cost_usd = 0;
  bool cost_unknown = false;  // some model had no price
};

struct SearchConfig {
  std::optional<llm::ProviderSettings> provider;  // none: only the declared candidates are tried
  llm::ClientEnvironment client;
  int samples = 4;
  int rounds = 3;
  double budget_usd = 0;    // 0: none
  int64_t token_budget = 0; // 0: none
  std::filesystem::path log_dir;
  PriceTable prices;
  uint64_t base_seed = 0;
  int timing_runs = 31;
  int stress_runs = kDefaultStressRuns;  // see ValidationOptions
  IsolationSettings isolation;  // each candidate is validated in a child process, on a device of its own
  std::function<void(const SearchProgress&)> on_progress;
};

struct SearchOutcome {
  std::optional<CandidateRecord> best;  // the fastest correct candidate
  KernelBinary best_binary;
  SearchProgress totals;
  int candidates = 0;
  int rounds_run = 0;
  std::string stop_reason;  // why the search ended
};

// Rejection sampling with feedback: the declared candidates first, then up to `rounds` rounds of `samples`
// concurrent completions, each extracted, compiled and validated; the failures of a round are fed back into
// the next round's prompt; it stops at the first round with a correct candidate, or when a budget is spent.
// Every candidate is written to the log as a c_/r_ record. `device` describes the device the candidates will
// run on, for the prompt; they run in child processes (config.isolation), which use the op's reference linked
// into the kernelgen tool.
SearchOutcome run_search(const DeviceInfo& device, const OpSpec& spec, const std::string& reference_text,
                         const std::string& spec_hash,
                         const std::vector<Candidate>& declared, const SearchConfig& config);

// One line of progress, e.g. "relu round 2/3: 4/4 samples, 1 accepted, rejected COMPILE_ERROR=2 ..."
std::string describe_progress(const SearchProgress& progress);

}  // namespace kernelgen
