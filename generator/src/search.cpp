#include "kernelgen/search.hpp"

#include <algorithm>
#include <limits>
#include <chrono>
#include <cstdio>
#include <future>

#include "kernelgen/device.hpp"
#include "kernelgen/extract.hpp"
#include "kernelgen/hash.hpp"
#include "kernelgen/prompt.hpp"

namespace kernelgen {

namespace {

using Clock = std::chrono::steady_clock;

// provider/model; a replay is named by its cassette, not by the folder the cassette lies in.
std::string model_name(const llm::ProviderSettings& provider) {
  if (provider.provider == "replay") return "replay/" + std::filesystem::path(provider.cassette).filename().string();
  return provider.provider + "/" + provider.model;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Sample {
  std::optional<llm::Completion> completion;
  std::string error;  // the provider gave up
  double seconds = 0;
};

class Search {
 public:
  Search(const DeviceInfo& device, const OpSpec& spec, const std::string& reference_text, const std::string& spec_hash,
         const SearchConfig& config)
      : device_(device), spec_(spec), reference_text_(reference_text), reference_hash_(content_hash(reference_text)),
        spec_hash_(spec_hash), config_(config) {
    progress_.op = spec.name;
    progress_.rounds = config.provider ? config.rounds : 0;
  }

  SearchOutcome run(const std::vector<Candidate>& declared) {
    if (!declared.empty()) {
      progress_.samples = static_cast<int>(declared.size());
      for (size_t i = 0; i < declared.size(); ++i) {
        llm::Completion completion;
        completion.text = declared[i].source;
        completion.author = declared[i].author;
        evaluate(declared[i].source, std::move(completion), {}, 0, static_cast<int>(i), "", "", 0, declared[i].origin);
      }
    }
    if (outcome_.best) return finish("a declared candidate passed");
    if (!config_.provider) return finish(declared.empty() ? "no provider configured" : "no declared candidate passed");

    std::vector<Feedback> feedback;
    std::string parent;
    for (int round = 1; round <= config_.rounds; ++round) {
      if (auto spent = budget_spent()) return finish(*spent);
      outcome_.rounds_run = round;
      progress_.round = round;
      progress_.samples_done = 0;
      progress_.samples = config_.samples;
      const llm::Prompt prompt = build_prompt(spec_, reference_text_, device_, feedback);
      std::vector<std::future<Sample>> pending;
      for (int s = 0; s < config_.samples; ++s) {
        const std::string key = spec_.name + "/r" + std::to_string(round) + "/s" + std::to_string(s);
        pending.push_back(std::async(std::launch::async, [this, prompt, key] { return request(prompt, key); }));
      }
      std::vector<std::pair<const CandidateRecord*, std::string>> failures;
      std::vector<std::string> errors;
      for (int s = 0; s < config_.samples; ++s) {
        Sample sample = pending[s].get();
        if (!sample.completion) {
          errors.push_back(sample.error);
          ++progress_.samples_done;
          report();
          continue;
        }
        const Extraction extraction = extract_kernel(sample.completion->text);
        evaluate(extraction.ok ? extraction.code : "", std::move(*sample.completion), prompt, round, s, parent,
                 extraction.ok ? "" : extraction.error, sample.seconds);
      }
      if (static_cast<int>(errors.size()) == config_.samples)
        return finish("every request of round " + std::to_string(round) + " failed: " + errors.front());
      if (outcome_.best) return finish("round " + std::to_string(round) + " found a correct kernel");
      feedback = round_feedback(round);
      parent = feedback_parent_;
    }
    return finish("no correct kernel after " + std::to_string(config_.rounds) + " rounds");
  }

 private:
  Sample request(const llm::Prompt& prompt, const std::string& key) {
    Sample sample;
    const auto start = Clock::now();
    try {
      sample.completion = llm::complete(*config_.provider, prompt, key, config_.client);
    } catch (const std::exception& error) {
      sample.error = error.what();
    }
    sample.seconds = seconds_since(start);
    return sample;
  }

  // Compiles, validates, times and records one candidate. `extraction_error` non-empty: nothing to compile.
  void evaluate(const std::string& glsl, llm::Completion completion, const llm::Prompt& prompt, int round, int sample,
                const std::string& parent, const std::string& extraction_error, double llm_seconds = 0,
                const std::string& origin = "") {
    CandidateRecord record;
    record.uuid = new_uuid();
    record.timestamp = utc_timestamp();
    record.op = spec_.name;
    record.spec = spec_;
    record.spec_hash = spec_hash_;
    record.reference_hash = reference_hash_;
    record.model = round > 0 ? model_name(*config_.provider) : "";
    record.author = completion.author;
    record.round = round;
    record.sample = sample;
    record.origin = origin.empty() ? spec_.name + "/r" + std::to_string(round) + "/s" + std::to_string(sample) : origin;
    record.parent = parent;
    record.prompt = prompt;
    record.llm_seconds = llm_seconds;
    // Declared candidates and hand-written completions cost nothing; a model's cost is unknown without a price.
    const bool free = round == 0 || completion.author == "hand-written";
    record.cost_usd = free ? std::optional<double>(0) : cost_usd(config_.prices, completion.author, completion.usage);
    record.glsl = glsl;

    const auto start = Clock::now();
    KernelBinary binary;
    if (round > 0 && !extraction_error.empty()) {
      record.verdict.status = Status::COMPILE_ERROR;
      record.verdict.reason = extraction_error;
      record.verdict.device = device_.name;
      if (completion.finish_reason == "length") record.verdict.reason += " (finish_reason: length)";
    } else {
      record.verdict =
          evaluate_isolated(config_.isolation, spec_, glsl,
                        {config_.base_seed, config_.timing_runs, config_.stress_runs}, &binary);
      if (!binary.spirv.empty()) record.spirv_hash = content_hash(binary.spirv);
    }
    record.validation_seconds = seconds_since(start);
    record.completion = std::move(completion);

    progress_.tokens += record.completion.usage.prompt_tokens + record.completion.usage.completion_tokens;
    if (record.cost_usd) progress_.cost_usd += *record.cost_usd;
    else progress_.cost_unknown = true;
    ++progress_.samples_done;
    ++outcome_.candidates;
    if (record.correct()) {
      ++progress_.accepted;
      // An untimed kernel (its timing failed) is kept only until a timed one passes.
      const auto median = [](const CandidateRecord& r) {
        return r.verdict.timing ? r.verdict.timing->median_ns : std::numeric_limits<double>::infinity();
      };
      const double ns = median(record);
      if (!outcome_.best || ns < median(*outcome_.best)) {
        outcome_.best = record;
        outcome_.best_binary = binary;
        if (record.verdict.timing) progress_.best_ns = ns;
      }
    } else {
      ++progress_.rejected[status_name(record.verdict.status)];
    }
    if (!config_.log_dir.empty()) write_record(config_.log_dir, record);
    round_records_.push_back(std::move(record));
    report();
  }

  // The failures of a round to show the model: one per distinct status, the first of each, at most three.
  std::vector<Feedback> round_feedback(int round) {
    std::vector<Feedback> feedback;
    std::vector<Status> seen;
    feedback_parent_.clear();
    for (const CandidateRecord& record : round_records_) {
      if (record.round != round || record.correct()) continue;
      if (std::find(seen.begin(), seen.end(), record.verdict.status) != seen.end()) continue;
      seen.push_back(record.verdict.status);
      if (feedback_parent_.empty()) feedback_parent_ = record.uuid;
      feedback.push_back({record.glsl.empty() ? record.completion.text : record.glsl, describe(record.verdict)});
      if (feedback.size() == 3) break;
    }
    return feedback;
  }

  std::optional<std::string> budget_spent() const {
    char text[96];
    if (config_.budget_usd > 0 && progress_.cost_usd >= config_.budget_usd) {
      std::snprintf(text, sizeof text, "the budget of $%.2f is spent ($%.4f)", config_.budget_usd, progress_.cost_usd);
      return text;
    }
    if (config_.token_budget > 0 && progress_.tokens >= config_.token_budget)
      return "the token budget of " + std::to_string(config_.token_budget) + " is spent";
    return std::nullopt;
  }

  void report() {
    if (config_.on_progress) config_.on_progress(progress_);
  }

  SearchOutcome finish(std::string reason) {
    outcome_.totals = progress_;
    outcome_.stop_reason = std::move(reason);
    return std::move(outcome_);
  }

  const DeviceInfo& device_;
  const OpSpec& spec_;
  const std::string& reference_text_;
  const std::string reference_hash_;  // the same for every candidate: hashed once
  const std::string& spec_hash_;
  const SearchConfig& config_;
  SearchProgress progress_;
  SearchOutcome outcome_;
  std::vector<CandidateRecord> round_records_;
  std::string feedback_parent_;
};

}  // namespace

SearchOutcome run_search(const DeviceInfo& device, const OpSpec& spec, const std::string& reference_text,
                         const std::string& spec_hash, const std::vector<Candidate>& declared,
                         const SearchConfig& config) {
  return Search(device, spec, reference_text, spec_hash, config).run(declared);
}

std::string describe_progress(const SearchProgress& p) {
  char text[256];
  std::string line = p.op + (p.round == 0 ? std::string(" declared") : " round " + std::to_string(p.round) + "/" +
                                                                         std::to_string(p.rounds)) +
                     ": " + std::to_string(p.samples_done) + "/" + std::to_string(p.samples) + " candidates, " +
                     std::to_string(p.accepted) + " accepted";
  for (const auto& [status, count] : p.rejected) line += ", " + status + " " + std::to_string(count);
  if (p.best_ns) {
    std::snprintf(text, sizeof text, ", best %.1f us", *p.best_ns / 1e3);
    line += text;
  }
  std::snprintf(text, sizeof text, ", %lld tokens, $%.4f%s", static_cast<long long>(p.tokens), p.cost_usd,
                p.cost_unknown ? " + unknown" : "");
  return line + text;
}

}  // namespace kernelgen
