#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/llm/client.hpp"
#include "kernelgen/llm/price.hpp"
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/search/candidate.hpp"
#include "kernelgen/store/record.hpp"
#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {

struct DeviceInfo;

// Where a search stands, after each candidate: what the build prints as progress.
struct SearchProgress {
  std::string op;
  int round = 0;  // 0: the declared candidates, before any LLM round
  int rounds = 0;
  int optimisation_round = 0;  // > 0: in an optimisation round (round stays the last correction round)
  int optimisation_rounds = 0;
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
  int samples = 4;  // completions per correction round; ideas asked for per parent in an optimisation round
  int rounds = 3;
  int opt_rounds = 0;  // optimisation rounds after the first correct kernel
  int beam = 1;        // parents kept from one optimisation round to the next
  std::optional<DevicePeaks> peaks;  // for each timing's fraction of peak and the brainstorm's roofline
  double budget_usd = 0;    // 0: none
  int64_t token_budget = 0; // 0: none
  std::filesystem::path log_dir;
  PriceTable prices;
  uint64_t base_seed = 0;
  int timing_runs = 31;
  int stress_runs = kDefaultStressRuns;  // see ValidationOptions
  IsolationSettings isolation;  // each candidate is validated in a child process, on a device of its own
  // The checked-in kernel's source, when a regeneration searches past a current one: the outcome then says how
  // it fared here (SearchOutcome::incumbent), for decide_replacement.
  std::string incumbent_source;
  std::function<void(const SearchProgress&)> on_progress;
};

// A candidate that failed, as the build lists it when none passed.
struct Rejection {
  std::string origin;       // the declared KERNEL file, or the cassette key op/r<round>/s<sample>
  bool declared = false;    // a KERNEL of the op's declaration: a file `kernelgen validate` can take
  std::string record_file;  // its c_/r_ record in the candidate log
  std::string status;
  std::string reason;       // the first failure, in one line
  uint64_t base_seed = 0;   // the cases it failed on: KERNELGEN_SEED replays them
};

struct SearchOutcome {
  // The fastest correct candidate: one replaces another only when it is faster beyond the noise of both
  // (faster_beyond_noise), so the same candidates give the same choice from run to run.
  std::optional<CandidateRecord> best;
  std::optional<CandidateRecord> first_correct;  // the best when the optimisation rounds began
  // The candidate whose source is SearchConfig::incumbent_source, as validated and timed here: the first that
  // failed where one did, else the first (correct) one; none where the search did not reach it.
  std::optional<CandidateRecord> incumbent;
  std::vector<Rejection> rejections;  // every rejected candidate, in the order they were validated
  // The content hashes (content_hash) of every correct candidate's source, sorted, without repeats: what the best
  // was chosen among (manifest search.chosen_among, incumbent.hpp).
  std::vector<std::string> correct_sources;
  KernelBinary best_binary;
  SearchProgress totals;
  int candidates = 0;
  int rounds_run = 0;
  int optimisation_rounds_run = 0;
  std::string stop_reason;  // why the search ended
};

// Rejection sampling with feedback: the declared candidates first, then up to `rounds` rounds of `samples`
// concurrent completions, each extracted, compiled and validated; the failures of a round are fed back into
// the next round's prompt, until a round has a correct candidate. Then up to `opt_rounds` optimisation rounds:
// for each of the `beam` fastest correct kernels a brainstorm call (key <op>/o<round>/p<parent>/ideas) asks for
// `samples` ideas, and one implement call per idea (<op>/o<round>/p<parent>/i<idea>) for a kernel, validated and
// timed like any candidate; the optimisations stop early after two rounds in a row without a speed-up beyond
// the noise. Any phase stops when a budget is spent. Every candidate is written to the log as a c_/r_ record,
// every brainstorm as an i_ record. `device` describes the device the candidates will
// run on, for the prompt; they run in child processes (config.isolation), which use the op's reference linked
// into the kernelgen tool.
SearchOutcome run_search(const DeviceInfo& device, const OpSpec& spec, const std::string& reference_text,
                         const std::string& spec_hash,
                         const std::vector<Candidate>& declared, const SearchConfig& config);

// One line of progress, e.g. "relu round 2/3: 4/4 samples, 1 accepted, rejected COMPILE_ERROR=2 ..."
std::string describe_progress(const SearchProgress& progress);

}  // namespace kernelgen
