#include "kernelgen/emit/build_step.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/contract/reference_module.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/emit/emit.hpp"
#include "kernelgen/llm/cassette.hpp"
#include "kernelgen/llm/providers.hpp"
#include "kernelgen/llm/settings.hpp"
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/search/candidate.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/search/search.hpp"
#include "kernelgen/selection/incumbent.hpp"
#include "kernelgen/selection/paired_timing.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"
#include "kernelgen/store/manifest.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/validation/protocol.hpp"
#include "kernelgen/validation/validation_devices.hpp"

extern char** environ;

#ifndef KERNELGEN_VERSION
#define KERNELGEN_VERSION "unknown"
#endif

namespace kernelgen {

namespace {

// The verdict in a manifest: per case kind, its largest errors over every size it ran at, and the sizes.
nlohmann::json validation_summary(const Verdict& verdict) {
  nlohmann::json cases = nlohmann::json::array();
  std::vector<std::string> sizes;
  for (const CaseResult& c : verdict.cases) {
    if (!c.dims.empty() && std::find(sizes.begin(), sizes.end(), c.dims) == sizes.end()) sizes.push_back(c.dims);
    auto kind = std::find_if(cases.begin(), cases.end(), [&](const nlohmann::json& k) { return k["name"] == c.name; });
    if (kind == cases.end()) {
      cases.push_back({{"name", c.name}, {"max_abs_error", c.comparison.max_abs_error},
                       {"max_rel_error", c.comparison.max_rel_error}});
      continue;
    }
    (*kind)["max_abs_error"] = std::max((*kind)["max_abs_error"].get<double>(), c.comparison.max_abs_error);
    (*kind)["max_rel_error"] = std::max((*kind)["max_rel_error"].get<double>(), c.comparison.max_rel_error);
  }
  nlohmann::json summary = {{"status", status_name(verdict.status)},
                            {"base_seed", verdict.base_seed},
                            {"device", verdict.device},
                            {"cases", cases}};
  if (!verdict.devices.empty()) summary["devices"] = verdict.devices;
  if (!sizes.empty()) summary["sizes"] = sizes;
  summary["mode"] = verdict.reduced.empty() ? "full" : "reduced";
  if (!verdict.reduced.empty()) summary["missing"] = verdict.reduced;
  return summary;
}

// `earlier`: what the kernel an optimisation started from was chosen among; the new one was chosen among those too.
GeneratedKernel check_in(const OpSpec& spec, const std::string& hash, const SearchOutcome& outcome,
                         const std::vector<std::string>& earlier) {
  const CandidateRecord& best = *outcome.best;
  GeneratedKernel kernel;
  kernel.source = best.glsl;
  kernel.spirv = outcome.best_binary.spirv;
  Manifest& m = kernel.manifest;
  m.op = spec.name;
  m.spec_hash = hash;
  m.author = best.author;
  m.source_hash = content_hash(kernel.source);
  m.spirv_hash = content_hash(kernel.spirv);
  m.contract = spec.contract();
  m.dims = spec.dim_names();
  m.dispatch = outcome.best_binary.grid.text();
  m.local_size = reflect_spirv(kernel.spirv)->local_size;
  m.compiler = compiler_version();
  m.validation = validation_summary(best.verdict);
  // A kernel whose timing failed is checked in untimed, saying why.
  m.timing = best.verdict.timing ? nlohmann::json(*best.verdict.timing)
                                 : nlohmann::json{{"error", best.verdict.timing_error}};
  // Paths relative to the project, so the committed manifest does not name this machine's directories.
  const auto project = std::filesystem::path(spec.generated_dir).parent_path().parent_path();
  const bool is_file = std::filesystem::exists(best.origin);
  const SearchProgress& totals = outcome.totals;
  m.search = {{"candidates", outcome.candidates},
              {"rounds", outcome.rounds_run},
              {"optimisation_rounds", outcome.optimisation_rounds_run},
              {"model", best.model.empty() ? nlohmann::json() : nlohmann::json(best.model)},
              {"accepted_from", is_file ? std::filesystem::relative(best.origin, project).generic_string() : best.origin},
              {"accepted_record", best.file_name()},
              {"tokens", totals.tokens},
              {"cost_usd", totals.cost_unknown ? nlohmann::json("unknown") : nlohmann::json(totals.cost_usd)},
              {"stop_reason", outcome.stop_reason}};
  // Which device chose it among the correct candidates: a regeneration on another keeps it (incumbent.hpp).
  m.search["chosen_on"] = best.verdict.timing ? best.verdict.timing->device : best.verdict.device;
  // And among which: a replay of the same candidates keeps it, however it times them (incumbent.hpp).
  m.search["chosen_among"] = merged_hashes(earlier, outcome.correct_sources);
  if (!best.idea.empty()) m.search["idea"] = best.idea;
  if (outcome.first_correct && outcome.first_correct->uuid != best.uuid) {
    m.search["first_correct_record"] = outcome.first_correct->file_name();
    if (best.speedup_over_first_correct) m.search["speedup_over_first_correct"] = *best.speedup_over_first_correct;
  }
  m.generated_at = utc_timestamp();
  m.kernelgen_version = KERNELGEN_VERSION;
  write_generated(spec.generated_dir, kernel);
  return kernel;
}

std::string microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
  return text;
}

std::string how_to_generate(const OpSpec& spec) {
  const std::string hand_written =
      spec.kernel_path.empty() ? "Or declare a hand-written KERNEL in kernelgen_add_op(" + spec.name + " ...)"
                               : "Or fix the declared KERNEL " + spec.kernel_path;
  return "  To generate it, build on a machine that may reach a model:\n"
         "    cmake -S <source> -B <build> -DKERNELGEN_OFFLINE=OFF -DKERNELGEN_MODEL=openai/gpt-4o   (OPENAI_API_KEY in "
         "the environment or .env)\n"
         "    cmake --build <build> --target kernelgen_regenerate_" + spec.name + "\n"
         "  then commit " + spec.generated_dir + "/. " + hand_written +
         ", or replay recorded completions with -DKERNELGEN_MODEL=replay -DKERNELGEN_CASSETTE_DIR=<dir>.\n";
}

// Each rejected candidate's reason, and how to reproduce it: `kernelgen validate` for a declared KERNEL file,
// `kernelgen show` for a model's completion (its record holds the kernel).
std::string describe_rejections(const BuildStepOptions& options, const std::vector<Rejection>& rejections) {
  std::string text;
  for (const Rejection& rejection : rejections) {
    text += "  " + rejection.origin + ": " + rejection.status + ": " + rejection.reason + "\n";
    const std::string seed =
        rejection.base_seed ? "KERNELGEN_SEED=" + std::to_string(rejection.base_seed) + " " : std::string();
    const std::string log = options.log_dir.empty() ? "" : " --log-dir " + options.log_dir.string();
    if (rejection.declared)
      text += "    reproduce: " + seed + "kernelgen validate --spec " + options.spec_path.string() + " --kernel " +
              rejection.origin + (options.reference_module.empty() ? "" : " --reference " +
                                                                            options.reference_module.string()) + "\n";
    else if (!options.log_dir.empty())
      text += "    its kernel: kernelgen show " + rejection.record_file + log + "\n";
  }
  return text;
}

// The model string, strongest source first: the op's MODEL, then CMake/env/.env KERNELGEN_MODEL.
std::optional<std::string> model_for(const OpSpec& spec, const llm::SettingSources& sources) {
  if (!spec.search.model.empty()) return spec.search.model;
  return sources.get("KERNELGEN_MODEL");
}

std::optional<llm::ProviderSettings> provider_for(const OpSpec& spec, const BuildStepOptions& options,
                                                  const llm::SettingSources& sources, llm::ClientEnvironment& client) {
  const auto model = model_for(spec, sources);
  if (!model) return std::nullopt;
  llm::ProviderSettings settings;
  const std::filesystem::path cassette = options.cassette_dir / (spec.name + ".json");
  if (*model == "replay") {
    if (options.cassette_dir.empty())
      throw std::invalid_argument("KERNELGEN_MODEL=replay needs KERNELGEN_CASSETTE_DIR (the folder of <op>.json cassettes)");
    settings = llm::resolve_settings("replay/" + cassette.string(), sources);
  } else {
    settings = llm::resolve_settings(*model, sources);
  }
  if (settings.provider == "replay") {
    client.transport = llm::replay_transport(settings.cassette);
    return settings;
  }
  if (options.offline)
    throw std::runtime_error("KERNELGEN_OFFLINE=ON forbids asking " + *model + " for op '" + spec.name + "'");
  if (sources.get("KERNELGEN_RECORD").value_or("0") != "0") {
    if (options.cassette_dir.empty()) throw std::invalid_argument("KERNELGEN_RECORD=1 needs KERNELGEN_CASSETTE_DIR");
    client.transport =
        llm::recording_transport(llm::curl_post, cassette, llm::wire_format_of(settings.provider),
                                 settings.provider + "/" + settings.model);
  }
  return settings;
}

// Whether git would commit the file: it lies in a work tree and is tracked or not ignored. False where git
// cannot be run or the file lies in no work tree (check-ignore exits 128 there).
bool git_would_commit(const std::filesystem::path& file) {
  const std::string directory = file.parent_path().string(), name = file.filename().string();
  const char* argv[] = {"git", "-C", directory.c_str(), "check-ignore", "-q", "--", name.c_str(), nullptr};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  for (int fd : {0, 1, 2})
    posix_spawn_file_actions_addopen(&quiet, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "git", &quiet, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

// The settings of .env, with a warning when git would commit the file: it is where API keys go.
std::map<std::string, std::string> read_dotenv(const std::filesystem::path& dotenv) {
  if (git_would_commit(dotenv)) {
    const std::string name = dotenv.filename().string();
    std::fprintf(stderr,
                 "kernelgen: warning: %s is where API keys go, and git would commit it. Add %s to the "
                 "project's .gitignore (and run `git rm --cached %s` if it is committed already).\n",
                 dotenv.c_str(), name.c_str(), name.c_str());
  }
  return llm::parse_dotenv(read_file(dotenv));
}


// How candidates are validated and timed, for the search and for variants alike.
void configure_validation(const BuildStepOptions& options, const llm::SettingSources& sources, const DeviceInfo& device,
                          SearchConfig& config) {
  config.log_dir = options.log_dir;
  config.base_seed = base_seed_from_environment();
  config.stress_runs = stress_runs_from_environment();
  config.isolation.timeout_s =
      validation_timeout(sources.get("KERNELGEN_VALIDATION_TIMEOUT_S"), options.concurrent_searches);
  // This process never runs a candidate: each is validated in a child process on a device of its own.
  config.isolation.devices = validation_devices_here(sources.get("KERNELGEN_VALIDATION_DEVICES"), device);
  // The probe kernels are kernelgen's own: they run here, once per device and driver.
  if (!options.log_dir.empty()) config.peaks = cached_device_peaks(device, options.log_dir / "device_peaks.json");
  config.on_progress = [](const SearchProgress& progress) {
    std::fprintf(stderr, "kernelgen: %s\n", describe_progress(progress).c_str());
  };
}

// Whether `what` (a search, a declared KERNEL, a variant) may be validated on these devices: the full protocol, or a
// reduced one that KERNELGEN_REDUCED_VALIDATION=1 accepts, which it says. Returns the exit code.
int refuse_reduced_validation(const std::string& what, const std::vector<DeviceInfo>& devices,
                              const llm::SettingSources& sources) {
  const ValidationProtocol protocol = validation_protocol_here(devices);
  const bool accepted = accepts_reduced_validation(sources.get("KERNELGEN_REDUCED_VALIDATION"));
  if (auto refused = reduced_validation_refused(protocol, accepted)) {
    std::fprintf(stderr, "kernelgen: %s: %s\n", what.c_str(), refused->c_str());
    return 1;
  }
  if (!protocol.full())
    std::fprintf(stderr, "kernelgen: %s: %s\n", what.c_str(), reduced_validation_accepted(protocol).c_str());
  return 0;
}

// The search settings of the op and of the build; on a problem it says what and returns the exit code.
int configure_search(const BuildStepOptions& options, const OpSpec& spec, const llm::SettingSources& sources,
                     const DeviceInfo& device, bool has_declared, SearchConfig& config) {
  try {
    config.provider = provider_for(spec, options, sources, config.client);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kernelgen: op '%s': %s\n%s", spec.name.c_str(), error.what(), how_to_generate(spec).c_str());
    return 1;
  }
  if (!has_declared && !config.provider) {
    std::fprintf(stderr, "kernelgen: op '%s' has no kernel and no model is configured.\n%s", spec.name.c_str(),
                 how_to_generate(spec).c_str());
    return 1;
  }
  config.samples = spec.search.samples;
  config.rounds = spec.search.rounds;
  config.opt_rounds = spec.search.opt_rounds;
  config.beam = spec.search.beam;
  config.budget_usd = spec.search.budget_usd;
  try {
    if (auto tokens = sources.get("KERNELGEN_TOKEN_BUDGET")) config.token_budget = std::stoll(*tokens);
    if (auto rounds = sources.get("KERNELGEN_OPT_ROUNDS")) config.opt_rounds = std::stoi(*rounds);
  } catch (const std::exception&) {
    std::fprintf(stderr, "kernelgen: op '%s': KERNELGEN_TOKEN_BUDGET and KERNELGEN_OPT_ROUNDS must be whole numbers\n",
                 spec.name.c_str());
    return 1;
  }
  config.prices = load_prices();
  if (config.provider && config.provider->provider != "replay") {
    try {
      require_price_for_budget(config.prices, config.provider->provider + "/" + config.provider->model,
                               config.budget_usd);
    } catch (const std::invalid_argument& error) {
      std::fprintf(stderr, "kernelgen: op '%s': %s\n", spec.name.c_str(), error.what());
      return 1;
    }
  }
  configure_validation(options, sources, device, config);
  // A model's kernels and a declared KERNEL alike are validated by the full protocol unless the build accepts less.
  return refuse_reduced_validation("op '" + spec.name + "'", config.isolation.devices, sources);
}

// A kept kernel, reached by this search on the device that chose it: its manifest's search.chosen_among gains
// this search's correct candidates that it lacks (all of them in a manifest written before the field was), so that
// the next replay of the same candidates keeps it however it times them (incumbent.hpp). Only that field changes,
// in manifest.json as it lies; the kernel's other files are not touched.
void record_chosen_among(const OpSpec& spec, const SearchOutcome& outcome, const DeviceInfo& device,
                         GeneratedKernel& kept) {
  if (chosen_on(kept.manifest) != device.name || !outcome.incumbent || !outcome.incumbent->correct()) return;
  const std::vector<std::string> before = chosen_among(kept.manifest);
  const std::vector<std::string> after = merged_hashes(before, outcome.correct_sources);
  if (after == before) return;
  const std::filesystem::path file = std::filesystem::path(spec.generated_dir) / "manifest.json";
  nlohmann::json text = nlohmann::json::parse(read_file(file));
  if (!text.contains("search") || !text["search"].is_object()) return;
  text["search"]["chosen_among"] = after;
  write_file_atomic(file, text.dump(2) + "\n");
  kept.manifest.search["chosen_among"] = after;
  std::fprintf(stderr,
               "kernelgen: op '%s': its manifest now records the %zu correct candidates it was chosen among (%zu new)\n",
               spec.name.c_str(), after.size(), after.size() - before.size());
}

// The checked-in kernel as this search validated it (SearchOutcome::incumbent), or, where the search did not reach
// it and it was chosen on another device (the one case that keeps a kernel without timing it here), as validated
// now on the search's devices, untimed but checked at the timed size as the search's timing checks its
// candidates: a kernel is kept only where it passes this search's validation.
std::optional<CandidateRecord> incumbent_as_validated_here(const OpSpec& spec, const SearchOutcome& outcome,
                                                           const GeneratedKernel& incumbent, const DeviceInfo& device,
                                                           const SearchConfig& config, bool replace) {
  if (outcome.incumbent) return outcome.incumbent;
  if (replace || content_hash(outcome.best->glsl) == incumbent.manifest.source_hash ||
      chosen_on(incumbent.manifest) == device.name)
    return std::nullopt;
  CandidateRecord record;
  record.glsl = incumbent.source;
  record.origin = (std::filesystem::path(spec.generated_dir) / "kernel.comp").string();
  record.verdict =
      evaluate_isolated(config.isolation, spec, incumbent.source,
                        {.base_seed = config.base_seed, .stress_runs = config.stress_runs, .check_timed_size = true});
  std::fprintf(stderr, "kernelgen: op '%s': the checked-in kernel, chosen on %s, is none of this search's candidates; "
               "validated here: %s\n", spec.name.c_str(), chosen_on(incumbent.manifest).c_str(),
               status_name(record.verdict.status));
  return record;
}

// Runs the search, checks the best kernel in unless `keep` is the best (the checked-in one, in an
// optimisation), and says what it did. Returns the exit code; `kernel` receives what to emit.
// `incumbent`: the current checked-in kernel of a regeneration, which the search's pick replaces only as
// decide_replacement says.
int search_and_check_in(const BuildStepOptions& options, const OpSpec& spec, const std::string& reference_text,
                        const std::string& hash, const DeviceInfo& device, const std::vector<Candidate>& declared,
                        const SearchConfig& config, const GeneratedKernel* incumbent, bool replace,
                        std::optional<GeneratedKernel>& kernel) {
  // What killed runs left half-written stays hidden; clear it before adding more.
  for (const auto& directory : {options.log_dir, std::filesystem::path(spec.generated_dir).parent_path()})
    if (!directory.empty()) remove_abandoned_siblings(directory);
  const SearchOutcome outcome = run_search(device, spec, reference_text, hash, declared, config);
  if (!outcome.best) {
    std::fprintf(stderr, "kernelgen: op '%s': no candidate passed validation (%s); %s is unchanged.\n%s%s",
                 spec.name.c_str(), outcome.stop_reason.c_str(), spec.generated_dir.c_str(),
                 describe_rejections(options, outcome.rejections).c_str(), how_to_generate(spec).c_str());
    return 1;
  }
  if (incumbent) {
    const std::optional<CandidateRecord> incumbent_here =
        incumbent_as_validated_here(spec, outcome, *incumbent, device, config, replace);
    const ReplacementDecision decision =
        decide_replacement(incumbent->manifest, *outcome.best, incumbent_here ? &*incumbent_here : nullptr,
                           outcome.correct_sources, device.name, replace);
    std::fprintf(stderr, "kernelgen: op '%s': %s\n", spec.name.c_str(), decision.reason.c_str());
    bool replaces = decision.action == ReplacementDecision::Action::replace;
    if (decision.action == ReplacementDecision::Action::confirm) {
      const PairedTiming paired = time_in_pairs(config.isolation, spec, outcome.best->glsl, incumbent->source,
                                                config.base_seed, config.timing_runs);
      replaces = paired.challenger_faster;
      std::fprintf(stderr, "kernelgen: op '%s': %s: %s\n", spec.name.c_str(), paired.summary.c_str(),
                   replaces ? "faster in every pair, so it replaces the checked-in kernel"
                            : "not faster in every pair, so the checked-in kernel stays");
    }
    if (!replaces) {
      kernel = *incumbent;
      record_chosen_among(spec, outcome, device, *kernel);
      // Kept as it was chosen, validated again here as this glslang compiles it
      // (KERNELGEN_ALLOW_OTHER_GLSLANG=1 over an older toolchain's kernel.spv): that SPIR-V is checked in.
      if (check_in_recompiled(spec.generated_dir, *kernel))
        std::fprintf(stderr, "kernelgen: op '%s': kept, with kernel.spv recompiled by %s\n",
                     spec.name.c_str(), compiler_version().c_str());
      return 0;
    }
  }
  const Verdict& verdict = outcome.best->verdict;
  const std::string time = verdict.timing ? microseconds(verdict.timing->median_ns) : "untimed: " + verdict.timing_error;
  if (options.optimise && outcome.best->round == 0) {
    std::fprintf(stderr, "kernelgen: op '%s': no kernel beat the checked-in one (%s, %s); %s is unchanged.\n",
                 spec.name.c_str(), time.c_str(), outcome.stop_reason.c_str(), spec.generated_dir.c_str());
    return 0;
  }
  const std::vector<std::string> earlier =
      options.optimise && kernel ? chosen_among(kernel->manifest) : std::vector<std::string>{};
  kernel = check_in(spec, hash, outcome, earlier);
  std::string speedup;
  if (outcome.best->speedup_over_first_correct)
    speedup = ", " + std::to_string(*outcome.best->speedup_over_first_correct).substr(0, 4) +
              "x the first correct kernel's speed";
  std::fprintf(stderr, "kernelgen: op '%s': checked in %s (%s, %s on %s%s) at %s\n", spec.name.c_str(),
               outcome.best->origin.c_str(), outcome.best->author.c_str(), time.c_str(), verdict.device.c_str(),
               speedup.c_str(), spec.generated_dir.c_str());
  return 0;
}

// A variant (VARIANTS name=file.comp) checked in under generated/<op>/variants/<name>/: kept while current and
// its file unchanged, else validated on the validation devices that can run it (a device without, say,
// cooperative matrices cannot) and checked in. Where none of them can run it, a current variant is kept unvalidated
// here (ctest validates it on a device that can), and a missing or stale one fails the build. Returns the exit
// code; `checked_in` receives the variant.
int build_variant(const BuildStepOptions& options, const OpSpec& spec, const VariantSpec& variant,
                  const std::string& reference_text, const std::string& hash, const llm::SettingSources& sources,
                  OtherCompiler other_compiler, const std::filesystem::path& reference_module,
                  std::optional<GeneratedKernel>& checked_in) {
  OpSpec at = spec;
  at.generated_dir = spec.variant_dir(variant);
  const std::string what = "op '" + spec.name + "': variant '" + variant.name + "'";
  StoreCheck check = check_generated(at.generated_dir, hash, spec.dim_names(), other_compiler);
  const std::string source = read_file(variant.kernel_path);
  const bool current = check.state == StoreCheck::State::current;
  const bool changed = current && content_hash(source) != check.kernel->manifest.source_hash;
  if (current && !changed && !options.regenerate) {
    if (!check.warning.empty())
      std::fprintf(stderr, "kernelgen: %s: warning: %s\n", what.c_str(), check.warning.c_str());
    checked_in = std::move(check.kernel);
    return 0;
  }
  const std::string why = options.regenerate && current && !changed ? "regenerating on request"
                          : changed ? variant.kernel_path + " changed"
                                    : check.problem;
  const DeviceInfo device = Device::describe_selected();
  SearchConfig config;
  configure_validation(options, sources, device, config);
  config.isolation.reference_module = reference_module;
  config.rounds = 0;
  DevicesForKernel split = devices_that_run(config.isolation.devices, source);
  std::vector<DeviceInfo>& able = split.able;
  if (able.empty()) {
    // What the first validation device (the build's own, where it is one of them) lacks.
    const std::string lacking = split.unable.empty() ? "" : split.unable.front().second;
    const std::string needs = lacking.empty() ? "" : " (it declares " + lacking + ")";
    if (current && !changed) {
      std::fprintf(stderr, "kernelgen: %s: kept as checked in: no validation device here can run it%s\n",
                   what.c_str(), needs.c_str());
      checked_in = std::move(check.kernel);
      return 0;
    }
    std::fprintf(stderr, "kernelgen: %s: %s, and no validation device here can run it%s. Build it where one can "
                 "(KERNELGEN_DEVICE, KERNELGEN_VALIDATION_DEVICES) and commit %s/.\n", what.c_str(), why.c_str(),
                 needs.c_str(), at.generated_dir.c_str());
    return 1;
  }
  std::fprintf(stderr, "kernelgen: %s: %s\n", what.c_str(), why.c_str());
  // Judged by what this machine offers: a device that has them but cannot run the variant (lavapipe and
  // cooperative matrices) is no piece to install, and the verdict still lists what validated it.
  if (const int refused = refuse_reduced_validation(what, config.isolation.devices, sources)) return refused;
  // The first device times the kernel: the build's own where it can run it.
  std::stable_partition(able.begin(), able.end(), [&](const DeviceInfo& d) { return d.index == device.index; });
  config.isolation.devices = able;
  const std::vector<Candidate> declared{Candidate{source, "hand-written", variant.kernel_path}};
  const SearchOutcome outcome = run_search(able.front(), at, reference_text, hash, declared, config);
  if (!outcome.best) {
    std::fprintf(stderr, "kernelgen: %s: %s did not pass validation (%s); %s is unchanged.\n", what.c_str(),
                 variant.kernel_path.c_str(), outcome.stop_reason.c_str(), at.generated_dir.c_str());
    return 1;
  }
  if (current && !changed) {
    // The same kernel, validated again: a new timing is no reason to rewrite its manifest, but an older
    // glslang's kernel.spv (KERNELGEN_ALLOW_OTHER_GLSLANG=1) gives way to what was validated.
    checked_in = std::move(check.kernel);
    const bool recompiled = check_in_recompiled(at.generated_dir, *checked_in);
    std::fprintf(stderr, "kernelgen: %s: passed again; %s\n", what.c_str(),
                 recompiled ? ("its kernel.spv recompiled by " + compiler_version()).c_str()
                            : (at.generated_dir + " is unchanged").c_str());
    return 0;
  }
  checked_in = check_in(at, hash, outcome, {});
  std::fprintf(stderr, "kernelgen: %s: checked in at %s\n", what.c_str(), at.generated_dir.c_str());
  return 0;
}

}  // namespace

int run_build_step(const BuildStepOptions& options) {
  const OpSpec spec = load_op_spec(options.spec_path.string());
  std::string reference_text;
  try {
    reference_text = read_file(spec.reference_path);
  } catch (const std::exception& error) {
    throw std::runtime_error("op '" + spec.name + "': REFERENCE " + error.what());
  }
  // Loaded here, though only the validation workers call it, so that a wrong module fails every build alike.
  const std::filesystem::path reference_module =
      options.reference_module.empty() ? default_reference_module(options.spec_path) : options.reference_module;
  load_reference(reference_module, spec.name);
  const std::string hash = spec_hash(spec, reference_text, prompt_template_version());
  std::vector<Candidate> declared = declared_candidates(spec);

  llm::SettingSources sources;
  sources.explicit_values = options.explicit_settings;
  sources.environment = llm::process_environment;
  const OtherCompiler other_compiler = sources.get("KERNELGEN_ALLOW_OTHER_GLSLANG") == "1" ? OtherCompiler::recompile
                                                                                         : OtherCompiler::corrupt;
  StoreCheck check = check_generated(spec.generated_dir, hash, spec.dim_names(), other_compiler);
  const bool declared_kernel_changed =
      check.kernel && !declared.empty() && content_hash(declared.front().source) != check.kernel->manifest.source_hash &&
      check.kernel->manifest.author == "hand-written";
  std::optional<GeneratedKernel> kernel;
  const bool current = check.state == StoreCheck::State::current;
  if (options.optimise && !current) {
    std::fprintf(stderr, "kernelgen: op '%s': cannot optimise the checked-in kernel: %s. Build (or regenerate) it "
                 "first.\n", spec.name.c_str(), check.problem.c_str());
    return 1;
  }
  if (current && !options.regenerate && !options.optimise && !declared_kernel_changed) {
    kernel = std::move(check.kernel);
    if (!check.warning.empty())
      std::fprintf(stderr, "kernelgen: op '%s': warning: %s\n", spec.name.c_str(), check.warning.c_str());
  } else {
    const std::string why = options.optimise              ? "optimising the checked-in kernel on request"
                            : options.regenerate          ? "regenerating on request"
                            : declared_kernel_changed ? "the declared KERNEL " + spec.kernel_path + " changed"
                                                      : check.problem;
    std::fprintf(stderr, "kernelgen: op '%s': %s\n", spec.name.c_str(), why.c_str());
    if (!options.dotenv.empty() && std::filesystem::exists(options.dotenv))
      sources.dotenv = read_dotenv(options.dotenv);
    // Described once: for the validation devices, the peaks and the prompt.
    const DeviceInfo device = Device::describe_selected();
    SearchConfig config;
    if (const int failed =
            configure_search(options, spec, sources, device, !declared.empty() || options.optimise, config))
      return failed;
    config.isolation.reference_module = reference_module;
    if (options.optimise) {
      // The checked-in kernel is the one candidate before the optimisation rounds.
      declared = {Candidate{check.kernel->source, check.kernel->manifest.author,
                            (std::filesystem::path(spec.generated_dir) / "kernel.comp").string()}};
      config.rounds = 0;
      if (config.opt_rounds == 0) config.opt_rounds = 2;
      if (!config.provider) {
        std::fprintf(stderr, "kernelgen: op '%s': optimising needs a model (KERNELGEN_MODEL).\n%s", spec.name.c_str(),
                     how_to_generate(spec).c_str());
        return 1;
      }
      kernel = std::move(check.kernel);
    }
    // A regeneration past a current kernel: the search's pick must beat it (decide_replacement).
    const GeneratedKernel* incumbent = current && options.regenerate && !options.optimise && !declared_kernel_changed
                                                ? &*check.kernel
                                                : nullptr;
    if (incumbent) config.incumbent_source = incumbent->source;
    const bool replace = sources.get("KERNELGEN_REPLACE").value_or("0") != "0";
    if (const int failed = search_and_check_in(options, spec, reference_text, hash, device, declared, config,
                                               incumbent, replace, kernel))
      return failed;
  }
  std::vector<CheckedInVariant> variants;
  for (const VariantSpec& variant : spec.variants) {
    std::optional<GeneratedKernel> checked_in;
    if (const int failed = build_variant(options, spec, variant, reference_text, hash, sources, other_compiler,
                                         reference_module, checked_in))
      return failed;
    variants.push_back({variant.name, std::move(*checked_in)});
  }
  // Unchanged kernel data keeps its timestamp: the op's library is not recompiled when only its reference was.
  write_file_if_changed(options.output, emit_kernel_data(spec, *kernel, variants));
  return 0;
}

}  // namespace kernelgen
