#include "kernelgen/build_step.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "kernelgen/candidate.hpp"
#include "kernelgen/cases.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/emit.hpp"
#include "kernelgen/evaluate.hpp"
#include "kernelgen/files.hpp"
#include "kernelgen/hash.hpp"
#include "kernelgen/manifest.hpp"
#include "kernelgen/spirv_interface.hpp"

#ifndef KERNELGEN_VERSION
#define KERNELGEN_VERSION "unknown"
#endif

namespace kernelgen {

namespace {

constexpr int kTimingRuns = 31;

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

nlohmann::json validation_summary(const Verdict& verdict) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : verdict.cases)
    cases.push_back({{"name", c.name},
                     {"max_abs_error", c.comparison.max_abs_error},
                     {"max_rel_error", c.comparison.max_rel_error}});
  return {{"status", status_name(verdict.status)},
          {"base_seed", verdict.base_seed},
          {"device", verdict.device},
          {"cases", cases}};
}

struct Accepted {
  Candidate candidate;
  KernelBinary binary;
  Verdict verdict;
};

// Validates every candidate and keeps the fastest that passes.
std::optional<Accepted> select_fastest(const OpSpec& spec, ReferenceFunction reference,
                                       const std::vector<Candidate>& candidates) {
  Device device(DeviceOptions{.robust_buffer_access = true});
  std::optional<Accepted> best;
  const uint64_t seed = base_seed_from_environment();
  for (const Candidate& candidate : candidates) {
    std::fprintf(stderr, "kernelgen: op '%s': validating %s (%s) on %s\n", spec.name.c_str(),
                 candidate.origin.c_str(), candidate.author.c_str(), device.info().name.c_str());
    KernelBinary binary;
    Verdict verdict = evaluate_source(device, spec, reference, candidate.source, {seed, kTimingRuns}, &binary);
    std::fprintf(stderr, "%s", describe(verdict).c_str());
    if (!verdict.passed()) continue;
    if (!best || verdict.timing->median_ns < best->verdict.timing->median_ns)
      best = Accepted{candidate, std::move(binary), std::move(verdict)};
  }
  return best;
}

GeneratedKernel check_in(const OpSpec& spec, const std::string& hash, const Accepted& accepted, size_t tried) {
  GeneratedKernel kernel;
  kernel.source = accepted.candidate.source;
  kernel.spirv = accepted.binary.spirv;
  Manifest& m = kernel.manifest;
  m.op = spec.name;
  m.spec_hash = hash;
  m.author = accepted.candidate.author;
  m.source_hash = content_hash(kernel.source);
  m.spirv_hash = content_hash(kernel.spirv);
  m.dispatch = accepted.binary.grid;
  m.local_size = reflect_spirv(kernel.spirv)->local_size;
  m.validation = validation_summary(accepted.verdict);
  m.timing = *accepted.verdict.timing;
  // Relative to the project, so the committed manifest does not name this machine's paths.
  const auto project = std::filesystem::path(spec.generated_dir).parent_path().parent_path();
  m.search = {{"candidates", tried},
              {"accepted_from", std::filesystem::relative(accepted.candidate.origin, project).generic_string()},
              {"usage", nullptr},
              {"cost_usd", nullptr}};
  m.generated_at = utc_now();
  m.kernelgen_version = KERNELGEN_VERSION;
  write_generated(spec.generated_dir, kernel);
  return kernel;
}

std::string how_to_fix(const OpSpec& spec) {
  return "  To check a kernel in, declare a hand-written one with KERNEL in kernelgen_add_op(" + spec.name +
         " ...) and build again, or run\n    kernelgen validate --spec <build>/kernelgen/" + spec.name +
         "/spec.json --kernel <file.comp>\n  to see why a kernel is rejected.\n";
}

}  // namespace

int run_build_step(const BuildStepOptions& options) {
  const OpSpec spec = load_op_spec(options.spec_path.string());
  const ReferenceFunction reference = find_reference(spec.name);
  if (!reference)
    throw std::runtime_error("op '" + spec.name + "': no reference is linked into this kernelgen tool");
  const std::string hash = spec_hash(spec, read_file(spec.reference_path));
  const std::vector<Candidate> declared = declared_candidates(spec);

  StoreCheck check = check_generated(spec.generated_dir, hash);
  const bool declared_kernel_changed =
      check.kernel && !declared.empty() && content_hash(declared.front().source) != check.kernel->manifest.source_hash;
  std::optional<GeneratedKernel> kernel;
  if (check.state == StoreCheck::State::current && !options.regenerate && !declared_kernel_changed) {
    kernel = std::move(check.kernel);
  } else {
    const std::string why = options.regenerate            ? "regenerating on request"
                            : declared_kernel_changed ? "the declared KERNEL " + spec.kernel_path + " changed"
                                                      : check.problem;
    std::fprintf(stderr, "kernelgen: op '%s': %s\n", spec.name.c_str(), why.c_str());
    if (declared.empty()) {
      std::fprintf(stderr, "kernelgen: op '%s' has no kernel to check in.\n%s", spec.name.c_str(),
                   how_to_fix(spec).c_str());
      return 1;
    }
    const auto accepted = select_fastest(spec, reference, declared);
    if (!accepted) {
      std::fprintf(stderr, "kernelgen: op '%s': no candidate passed validation; %s is unchanged.\n%s",
                   spec.name.c_str(), spec.generated_dir.c_str(), how_to_fix(spec).c_str());
      return 1;
    }
    kernel = check_in(spec, hash, *accepted, declared.size());
    std::fprintf(stderr, "kernelgen: op '%s': checked in %s (%s) at %s\n", spec.name.c_str(),
                 accepted->candidate.origin.c_str(), accepted->candidate.author.c_str(), spec.generated_dir.c_str());
  }
  write_file_atomic(options.output, emit_kernel_data(spec, *kernel));
  return 0;
}

}  // namespace kernelgen
