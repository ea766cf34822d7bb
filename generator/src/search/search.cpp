#include "kernelgen/search/search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <iterator>

#include "kernelgen/device.hpp"
#include "kernelgen/optimise/ideas.hpp"
#include "kernelgen/optimise/optimise_prompts.hpp"
#include "kernelgen/search/extract.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/hash.hpp"

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

// Where a candidate came from: everything its record says besides the verdict.
struct CandidateSource {
  std::string glsl;
  llm::Completion completion;
  llm::Prompt prompt;
  int round = 0;
  int sample = 0;
  std::string parent;            // uuid
  std::string extraction_error;  // non-empty: nothing to compile
  double llm_seconds = 0;
  std::string origin;
  int optimisation_round = 0;
  std::string idea;
  const CandidateRecord* optimised = nullptr;  // the parent kernel of an optimisation
};

std::string cassette_key(const std::string& op, int round, int sample) {
  return op + "/r" + std::to_string(round) + "/s" + std::to_string(sample);
}

// Whether `candidate` should replace `best`: a timed kernel beats an untimed one; between timed ones only a
// speed-up beyond the noise of both counts, so that equal kernels keep the earlier one.
bool replaces(const CandidateRecord& candidate, const CandidateRecord& best) {
  if (!candidate.verdict.timing) return false;
  if (!best.verdict.timing) return true;
  return faster_beyond_noise(candidate.verdict.timing->stats(), best.verdict.timing->stats());
}

double median_of(const CandidateRecord& record) { return record.verdict.timing->median_ns; }

std::string ratio_text(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

class Search {
 public:
  Search(const DeviceInfo& device, const OpSpec& spec, const std::string& reference_text, const std::string& spec_hash,
         const SearchConfig& config)
      : device_(device), spec_(spec), reference_text_(reference_text), reference_hash_(content_hash(reference_text)),
        spec_hash_(spec_hash), config_(config) {
    progress_.op = spec.name;
    progress_.rounds = config.provider ? config.rounds : 0;
    progress_.optimisation_rounds = config.provider ? config.opt_rounds : 0;
  }

  SearchOutcome run(const std::vector<Candidate>& declared) {
    std::string found = correction_rounds(declared);
    if (!outcome_.best) return finish(found);
    outcome_.first_correct = outcome_.best;
    if (config_.opt_rounds <= 0) return finish(found);
    if (!config_.provider) return finish(found + "; no provider for the optimisation rounds");
    if (!outcome_.best->verdict.timing)
      return finish(found + "; not optimised, as it could not be timed: " + outcome_.best->verdict.timing_error);
    return finish(found + "; " + optimisation_rounds());
  }

 private:
  // The declared candidates, then rounds of samples with feedback until one is correct. Returns why it stopped.
  std::string correction_rounds(const std::vector<Candidate>& declared) {
    if (!declared.empty()) {
      progress_.samples = static_cast<int>(declared.size());
      for (size_t i = 0; i < declared.size(); ++i) {
        CandidateSource source;
        source.glsl = declared[i].source;
        source.completion.text = declared[i].source;
        source.completion.author = declared[i].author;
        source.sample = static_cast<int>(i);
        source.origin = declared[i].origin;
        evaluate(std::move(source));
      }
    }
    if (outcome_.best) return "a declared candidate passed";
    if (!config_.provider) return declared.empty() ? "no provider configured" : "no declared candidate passed";

    std::vector<Feedback> feedback;
    std::string parent;
    for (int round = 1; round <= config_.rounds; ++round) {
      if (auto spent = budget_spent()) return *spent;
      outcome_.rounds_run = round;
      progress_.round = round;
      progress_.samples_done = 0;
      progress_.samples = config_.samples;
      const llm::Prompt prompt = build_prompt(spec_, reference_text_, device_, feedback);
      std::vector<std::future<Sample>> pending;
      for (int s = 0; s < config_.samples; ++s)
        pending.push_back(std::async(std::launch::async, [this, prompt, key = cassette_key(spec_.name, round, s)] {
          return request(prompt, key);
        }));
      int failed_requests = 0;
      std::string first_error;
      for (int s = 0; s < config_.samples; ++s) {
        Sample sample = pending[s].get();
        if (!sample.completion) {
          if (failed_requests++ == 0) first_error = sample.error;
          ++progress_.samples_done;
          report();
          continue;
        }
        evaluate(generated(std::move(sample), prompt, round, s, parent));
      }
      if (failed_requests == config_.samples)
        return "every request of round " + std::to_string(round) + " failed: " + first_error;
      if (outcome_.best) return "round " + std::to_string(round) + " found a correct kernel";
      feedback = round_feedback(round);
      parent = feedback_parent_;
    }
    return "no correct kernel after " + std::to_string(config_.rounds) + " rounds";
  }

  // Rounds of brainstorm + implement calls from the `beam` fastest correct kernels. Returns why they stopped.
  std::string optimisation_rounds() {
    std::vector<CandidateRecord> correct;
    std::copy_if(round_records_.begin(), round_records_.end(), std::back_inserter(correct),
                 [](const CandidateRecord& r) { return r.correct(); });
    std::vector<CandidateRecord> parents = fastest(std::move(correct), config_.beam);
    int rounds_without_speedup = 0;
    for (int round = 1; round <= config_.opt_rounds; ++round) {
      if (auto spent = budget_spent()) return *spent;
      outcome_.optimisation_rounds_run = round;
      progress_.optimisation_round = round;
      progress_.samples_done = 0;
      progress_.samples = 0;
      const std::string best_before = outcome_.best->uuid;
      std::vector<CandidateRecord> pool = parents;
      for (size_t p = 0; p < parents.size(); ++p) {
        for (CandidateRecord& child : optimise(parents[p], round, static_cast<int>(p)))
          if (faster_beyond_noise(child.verdict.timing->stats(), parents[p].verdict.timing->stats()))
            pool.push_back(std::move(child));
      }
      parents = fastest(pool, config_.beam);
      if (outcome_.best->uuid != best_before) {
        rounds_without_speedup = 0;
      } else if (++rounds_without_speedup == 2) {
        return "optimisation stopped after round " + std::to_string(round) +
               ": two rounds in a row without a speed-up beyond the noise";
      }
    }
    return std::to_string(config_.opt_rounds) + " optimisation round" + (config_.opt_rounds == 1 ? "" : "s") +
           " run";
  }

  // One parent's brainstorm and implementations. Returns its correct, timed children.
  std::vector<CandidateRecord> optimise(const CandidateRecord& parent, int round, int index) {
    const std::string base = spec_.name + "/o" + std::to_string(round) + "/p" + std::to_string(index);
    const llm::Prompt brainstorm = build_brainstorm_prompt(spec_, reference_text_, device_, config_.peaks, parent.glsl,
                                                           *parent.verdict.timing, tried_, config_.samples);
    Sample answer = request(brainstorm, base + "/ideas");
    IdeaList ideas;
    if (answer.completion) ideas = parse_ideas(answer.completion->text);
    else ideas.error = "the request failed: " + answer.error;
    log_brainstorm(brainstorm, answer, ideas, parent, round, base + "/ideas");
    if (!ideas.ok) {
      ++progress_.rejected["NO_IDEAS"];
      report();
      return {};
    }
    if (ideas.ideas.size() > static_cast<size_t>(config_.samples)) ideas.ideas.resize(config_.samples);
    progress_.samples += static_cast<int>(ideas.ideas.size());

    std::vector<llm::Prompt> prompts;
    std::vector<std::future<Sample>> pending;
    for (size_t i = 0; i < ideas.ideas.size(); ++i) {
      prompts.push_back(build_implement_prompt(spec_, reference_text_, device_, parent.glsl, *parent.verdict.timing,
                                               ideas.ideas[i]));
      pending.push_back(std::async(std::launch::async, [this, prompt = prompts.back(), key = base + "/i" + std::to_string(i)] {
        return request(prompt, key);
      }));
    }
    std::vector<CandidateRecord> children;
    for (size_t i = 0; i < ideas.ideas.size(); ++i) {
      Sample sample = pending[i].get();
      if (!sample.completion) {
        tried_.push_back({ideas.ideas[i], "no kernel: the request failed"});
        ++progress_.samples_done;
        report();
        continue;
      }
      CandidateSource source = generated(std::move(sample), prompts[i], outcome_.rounds_run + round,
                                         static_cast<int>(i), parent.uuid);
      source.origin = base + "/i" + std::to_string(i);
      source.optimisation_round = round;
      source.idea = ideas.ideas[i];
      source.optimised = &parent;
      const CandidateRecord& child = evaluate(std::move(source));
      tried_.push_back({ideas.ideas[i], outcome(child, parent)});
      if (child.correct() && child.verdict.timing) children.push_back(child);
    }
    return children;
  }

  static std::string outcome(const CandidateRecord& child, const CandidateRecord& parent) {
    if (!child.correct()) {
      if (child.glsl.empty()) return "no kernel: " + child.verdict.reason;
      return std::string("rejected, ") + status_name(child.verdict.status) + ": " + child.verdict.reason;
    }
    if (!child.verdict.timing) return "correct, but it could not be timed";
    const std::string ratio = ratio_text(*child.speedup_over_parent);
    return faster_beyond_noise(child.verdict.timing->stats(), parent.verdict.timing->stats())
               ? ratio + " as fast as its parent (" + performance_text(*child.verdict.timing) + ")"
               : "correct, but no faster beyond the noise (" + ratio + " of its parent's speed)";
  }

  // The `count` fastest timed records, fastest first; equal times keep their order.
  static std::vector<CandidateRecord> fastest(std::vector<CandidateRecord> records, int count) {
    std::erase_if(records, [](const CandidateRecord& r) { return !r.verdict.timing; });
    std::stable_sort(records.begin(), records.end(),
                     [](const CandidateRecord& a, const CandidateRecord& b) { return median_of(a) < median_of(b); });
    if (records.size() > static_cast<size_t>(count)) records.resize(count);
    return records;
  }

  CandidateSource generated(Sample sample, const llm::Prompt& prompt, int round, int index, const std::string& parent) {
    const Extraction extraction = extract_kernel(sample.completion->text);
    CandidateSource source;
    source.glsl = extraction.ok ? extraction.code : "";
    source.extraction_error = extraction.ok ? "" : extraction.error;
    source.completion = std::move(*sample.completion);
    source.prompt = prompt;
    source.round = round;
    source.sample = index;
    source.parent = parent;
    source.llm_seconds = sample.seconds;
    return source;
  }

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

  // A model's cost: nothing for declared candidates and hand-written completions, unknown without a price.
  std::optional<double> cost_of(const llm::Completion& completion, bool declared) const {
    if (declared || completion.author == "hand-written") return 0.0;
    return cost_usd(config_.prices, completion.author, completion.usage);
  }

  void count_usage(const llm::Completion& completion, const std::optional<double>& cost) {
    progress_.tokens += completion.usage.prompt_tokens + completion.usage.completion_tokens;
    if (cost) progress_.cost_usd += *cost;
    else progress_.cost_unknown = true;
  }

  // Compiles, validates, times and records one candidate; returns its record.
  const CandidateRecord& evaluate(CandidateSource source) {
    const bool declared = source.round == 0;
    CandidateRecord record;
    record.uuid = new_uuid();
    record.timestamp = utc_timestamp();
    record.op = spec_.name;
    record.spec = spec_;
    record.spec_hash = spec_hash_;
    record.reference_hash = reference_hash_;
    record.model = declared ? "" : model_name(*config_.provider);
    record.author = source.completion.author;
    record.round = source.round;
    record.sample = source.sample;
    record.origin = source.origin.empty() ? cassette_key(spec_.name, source.round, source.sample) : source.origin;
    record.parent = source.parent;
    record.optimisation_round = source.optimisation_round;
    record.idea = source.idea;
    record.prompt = source.prompt;
    record.llm_seconds = source.llm_seconds;
    record.cost_usd = cost_of(source.completion, declared);
    record.glsl = source.glsl;

    const auto start = Clock::now();
    KernelBinary binary;
    if (!declared && !source.extraction_error.empty()) {
      record.verdict.status = Status::COMPILE_ERROR;
      record.verdict.reason = source.extraction_error;
      record.verdict.device = device_.name;
      if (source.completion.finish_reason == "length") record.verdict.reason += " (finish_reason: length)";
    } else {
      record.verdict = evaluate_isolated(config_.isolation, spec_, source.glsl,
                                         {config_.base_seed, config_.timing_runs, config_.stress_runs}, &binary);
      if (!binary.spirv.empty()) record.spirv_hash = content_hash(binary.spirv);
    }
    record.validation_seconds = seconds_since(start);
    record.completion = std::move(source.completion);
    if (auto& timing = record.verdict.timing; timing && config_.peaks) {
      const DevicePeaks peaks = peaks_for(*config_.peaks, binary.spirv);
      timing->fraction_of_peak = fraction_of_peak(peaks, timing->gbytes_per_second, timing->gflops);
      timing->peaks_bound = !is_cpu_device(device_);
      const auto warning = impossible_speed(*timing->fraction_of_peak, timing->gbytes_per_second, timing->gflops,
                                            peaks);
      if (warning && timing->peaks_bound)
        std::fprintf(stderr, "kernelgen: warning: op '%s', %s: %s\n", spec_.name.c_str(), record.file_name().c_str(),
                     warning->c_str());
    }
    if (record.correct() && record.verdict.timing && source.optimised) {
      record.speedup_over_parent = median_of(*source.optimised) / median_of(record);
      record.speedup_over_first_correct = median_of(*outcome_.first_correct) / median_of(record);
    }

    count_usage(record.completion, record.cost_usd);
    ++progress_.samples_done;
    ++outcome_.candidates;
    // The checked-in kernel as validated here: a failure of it stands over any pass.
    if (!config_.incumbent_source.empty() && record.glsl == config_.incumbent_source &&
        (!outcome_.incumbent || (outcome_.incumbent->correct() && !record.correct())))
      outcome_.incumbent = record;
    if (record.correct()) {
      ++progress_.accepted;
      if (!outcome_.best || replaces(record, *outcome_.best)) {
        outcome_.best = record;
        outcome_.best_binary = binary;
        if (record.verdict.timing) progress_.best_ns = median_of(record);
      }
    } else {
      ++progress_.rejected[status_name(record.verdict.status)];
      outcome_.rejections.push_back({record.origin, declared, record.file_name(), status_name(record.verdict.status),
                                     record.verdict.reason, record.verdict.base_seed});
    }
    if (!config_.log_dir.empty()) write_record(config_.log_dir, record);
    round_records_.push_back(std::move(record));
    report();
    return round_records_.back();
  }

  void log_brainstorm(const llm::Prompt& prompt, const Sample& answer, const IdeaList& ideas,
                      const CandidateRecord& parent, int round, const std::string& key) {
    IdeasRecord record;
    record.uuid = new_uuid();
    record.timestamp = utc_timestamp();
    record.op = spec_.name;
    record.spec_hash = spec_hash_;
    record.model = model_name(*config_.provider);
    record.optimisation_round = round;
    record.origin = key;
    record.parent = parent.uuid;
    record.prompt = prompt;
    if (answer.completion) record.completion = *answer.completion;
    record.llm_seconds = answer.seconds;
    record.ideas = ideas.ideas;
    record.error = ideas.error;
    record.cost_usd = answer.completion ? cost_of(*answer.completion, false) : std::optional<double>(0.0);
    count_usage(record.completion, record.cost_usd);
    if (!config_.log_dir.empty()) write_ideas_record(config_.log_dir, record);
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
    for (const CandidateRecord& record : round_records_)
      if (record.correct()) outcome_.correct_sources.push_back(content_hash(record.glsl));
    std::vector<std::string>& hashes = outcome_.correct_sources;
    std::sort(hashes.begin(), hashes.end());
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
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
  // Every candidate so far; a deque: evaluate() hands out references to its records.
  std::deque<CandidateRecord> round_records_;
  std::vector<TriedIdea> tried_;
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
  const std::string phase =
      p.optimisation_round > 0 ? " optimisation round " + std::to_string(p.optimisation_round) + "/" +
                                     std::to_string(p.optimisation_rounds)
      : p.round == 0           ? std::string(" declared")
                               : " round " + std::to_string(p.round) + "/" + std::to_string(p.rounds);
  std::string line = p.op + phase +
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
