#include "kernelgen/validation/verdict.hpp"

#include "kernelgen/validation/protocol.hpp"

#include <algorithm>
#include <vector>
#include <cstdio>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace kernelgen {

namespace {

constexpr std::pair<Status, const char*> kStatusNames[] = {
    {Status::PASSED, "PASSED"},
    {Status::COMPILE_ERROR, "COMPILE_ERROR"},
    {Status::INTERFACE_MISMATCH, "INTERFACE_MISMATCH"},
    {Status::RUNTIME_ERROR, "RUNTIME_ERROR"},
    {Status::TIMEOUT, "TIMEOUT"},
    {Status::INCORRECT_NUMERICAL, "INCORRECT_NUMERICAL"},
    {Status::NONDETERMINISTIC, "NONDETERMINISTIC"},
    {Status::WROTE_INPUT, "WROTE_INPUT"},
    {Status::OUT_OF_BOUNDS, "OUT_OF_BOUNDS"},
};

Status status_from_json(const nlohmann::json& json) {
  const std::string name = json.get<std::string>();
  if (auto status = parse_status(name)) return *status;
  throw std::invalid_argument("unknown verdict status \"" + name + "\"");
}

std::string format(const char* pattern, double a, double b) {
  char text[128];
  std::snprintf(text, sizeof text, pattern, a, b);
  return text;
}

}  // namespace

const char* status_name(Status status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "UNKNOWN";
}

std::optional<Status> parse_status(const std::string& name) {
  for (const auto& [value, text] : kStatusNames)
    if (name == text) return value;
  return std::nullopt;
}

namespace {

std::string case_line(const CaseResult& c, const std::string& label) {
  std::string text = "  " + std::string(c.passed() ? "ok  " : "FAIL") + " " + label;
  if (c.comparison.elements > 0)
    text += format("  max abs err %.3g, max rel err %.3g", c.comparison.max_abs_error, c.comparison.max_rel_error);
  if (c.comparison.unbounded)
    text += " (" + std::to_string(c.comparison.unbounded) + " elements whose terms overflow the dtype: finiteness only)";
  if (!c.passed()) text += "  [" + std::string(status_name(c.status)) + "] " + c.detail;
  return text + "\n";
}

// Cases at several sizes: the failures, then each kind once with its largest errors over the sizes.
std::string sized_case_lines(const std::vector<CaseResult>& cases) {
  std::string text;
  std::vector<std::string> kinds;
  for (const CaseResult& c : cases) {
    if (!c.passed()) text += case_line(c, c.name + " at " + c.dims);
    if (std::find(kinds.begin(), kinds.end(), c.name) == kinds.end()) kinds.push_back(c.name);
  }
  for (const std::string& kind : kinds) {
    CaseResult worst{kind};
    int runs = 0;
    std::vector<std::string> sizes;
    for (const CaseResult& c : cases) {
      if (c.name != kind || !c.passed()) continue;
      ++runs;
      if (std::find(sizes.begin(), sizes.end(), c.dims) == sizes.end()) sizes.push_back(c.dims);
      worst.comparison.elements += c.comparison.elements;
      worst.comparison.max_abs_error = std::max(worst.comparison.max_abs_error, c.comparison.max_abs_error);
      worst.comparison.max_rel_error = std::max(worst.comparison.max_rel_error, c.comparison.max_rel_error);
    }
    // The timed size is one size, checked on several cases: "timed (1 size, 6 cases)".
    const std::string count = std::to_string(sizes.size()) + (sizes.size() == 1 ? " size" : " sizes") +
                              (runs > static_cast<int>(sizes.size()) ? ", " + std::to_string(runs) + " cases" : "");
    if (runs > 0) text += case_line(worst, kind + " (" + count + ")");
  }
  return text;
}

}  // namespace

std::string pipeline_text(const std::vector<std::pair<std::string, std::string>>& statistics) {
  std::string text;
  for (const auto& [name, value] : statistics) text += (text.empty() ? "" : ", ") + name + " " + value;
  return text;
}

std::string describe(const Verdict& verdict) {
  std::string text = std::string(status_name(verdict.status));
  if (!verdict.reason.empty()) text += ": " + verdict.reason;
  text += "\n";
  const bool sized = std::any_of(verdict.cases.begin(), verdict.cases.end(), [](const CaseResult& c) { return !c.dims.empty(); });
  if (sized) {
    text += sized_case_lines(verdict.cases);
  } else {
    for (const CaseResult& c : verdict.cases) text += case_line(c, c.name);
  }
  if (!verdict.log.empty()) text += verdict.log + (verdict.log.back() == '\n' ? "" : "\n");
  if (verdict.timing)
    text += format("  GPU time: median %.1f us", verdict.timing->median_ns / 1e3, 0) +
            format(", %.1f GB/s", verdict.timing->gbytes_per_second, 0) +
            (verdict.timing->gflops > 0 ? format(", %.1f GFLOP/s", verdict.timing->gflops, 0) : "") + " on " +
            verdict.timing->device + (verdict.timing->dims.empty() ? "" : " at " + verdict.timing->dims) + "\n";
  if (verdict.timing && verdict.timing->p75_ns > 0) {
    text += format("  spread (interquartile) %.2f us over %.0f runs", verdict.timing->stats().spread_ns() / 1e3,
                   verdict.timing->runs);
    if (verdict.timing->fraction_of_peak)
      text += format(", %.1f%% of the device's peak", 100 * *verdict.timing->fraction_of_peak, 0);
    text += "\n";
  }
  if (verdict.timing && !verdict.timing->pipeline.empty())
    text += "  pipeline (the driver's statistics): " + pipeline_text(verdict.timing->pipeline) + "\n";
  if (!verdict.timing_error.empty()) text += "  not timed: " + verdict.timing_error + "\n";
  if (verdict.devices.size() > 1) {
    text += "  passed on";
    for (size_t d = 0; d < verdict.devices.size(); ++d) text += (d ? ", " : " ") + verdict.devices[d];
    text += "\n";
  }
  if (verdict.subgroup_sizes.size() > 1) {
    text += "  at subgroup sizes";
    for (size_t s = 0; s < verdict.subgroup_sizes.size(); ++s)
      text += (s ? ", " : " ") + std::to_string(verdict.subgroup_sizes[s]);
    text += "\n";
  }
  if (!verdict.reduced.empty()) text += "  reduced validation: " + describe_missing(verdict.reduced) + "\n";
  if (!verdict.cases.empty()) text += "  replay with KERNELGEN_SEED=" + std::to_string(verdict.base_seed) + "\n";
  return text;
}

void to_json(nlohmann::json& json, const Timing& t) {
  json = {{"device", t.device},
          {"runs", t.runs},
          {"dims", t.dims},
          {"median_ns", json_number(t.median_ns)},
          {"min_ns", json_number(t.min_ns)},
          {"p25_ns", json_number(t.p25_ns)},
          {"p75_ns", json_number(t.p75_ns)},
          {"flush_bytes", t.flush_bytes},
          {"gbytes_per_second", json_number(t.gbytes_per_second)},
          {"gflops", json_number(t.gflops)}};
  if (t.fraction_of_peak) json["fraction_of_peak"] = json_number(*t.fraction_of_peak);
  if (!t.peaks_bound) json["peaks_bound"] = false;
  if (t.flush != "write") json["flush"] = t.flush;  // only where not the default, as manifests checked in before it
  if (!t.pipeline.empty()) {
    json["pipeline"] = nlohmann::json::array();
    for (const auto& [name, value] : t.pipeline) json["pipeline"].push_back({{"name", name}, {"value", value}});
  }
}

TimingStats Timing::stats() const {
  TimingStats stats;
  stats.runs = runs;
  stats.median_ns = median_ns;
  stats.min_ns = min_ns;
  // Timings recorded before the quartiles were kept have none: their spread reads as 0.
  stats.p25_ns = p25_ns > 0 ? p25_ns : median_ns;
  stats.p75_ns = p75_ns > 0 ? p75_ns : median_ns;
  return stats;
}

void to_json(nlohmann::json& json, const Verdict& v) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : v.cases)
    cases.push_back({{"name", c.name},
                     {"seed", c.seed},
                     {"status", status_name(c.status)},
                     {"tensor", c.tensor},
                     {"detail", c.detail},
                     {"comparison", c.comparison},
                     {"dims", c.dims}});
  json = {{"status", status_name(v.status)}, {"reason", v.reason}, {"base_seed", v.base_seed},
          {"device", v.device},              {"log", v.log},       {"cases", cases}};
  if (v.timing) json["timing"] = *v.timing;
  if (!v.timing_error.empty()) json["timing_error"] = v.timing_error;
  if (!v.devices.empty()) json["devices"] = v.devices;
  if (!v.subgroup_sizes.empty()) json["subgroup_sizes"] = v.subgroup_sizes;
  if (!v.reduced.empty()) json["reduced_validation"] = v.reduced;
}

void from_json(const nlohmann::json& json, Timing& t) {
  t.device = json.at("device").get<std::string>();
  t.runs = json.at("runs").get<int>();
  t.dims = json.value("dims", "");
  t.median_ns = number_from_json(json.at("median_ns"));
  t.min_ns = number_from_json(json.at("min_ns"));
  t.p25_ns = json.contains("p25_ns") ? number_from_json(json.at("p25_ns")) : 0;
  t.p75_ns = json.contains("p75_ns") ? number_from_json(json.at("p75_ns")) : 0;
  t.flush_bytes = json.value("flush_bytes", uint64_t{0});
  t.flush = json.value("flush", "write");
  if (json.contains("fraction_of_peak")) t.fraction_of_peak = number_from_json(json.at("fraction_of_peak"));
  t.peaks_bound = json.value("peaks_bound", true);
  t.gbytes_per_second = number_from_json(json.at("gbytes_per_second"));
  t.gflops = number_from_json(json.at("gflops"));
  for (const auto& statistic : json.value("pipeline", nlohmann::json::array()))
    t.pipeline.emplace_back(statistic.at("name").get<std::string>(), statistic.at("value").get<std::string>());
}

void from_json(const nlohmann::json& json, CaseResult& c) {
  c.name = json.at("name").get<std::string>();
  c.seed = json.at("seed").get<uint64_t>();
  c.status = status_from_json(json.at("status"));
  c.tensor = json.at("tensor").get<std::string>();
  c.detail = json.at("detail").get<std::string>();
  c.comparison = json.at("comparison").get<Comparison>();
  c.dims = json.value("dims", "");
}

void from_json(const nlohmann::json& json, Verdict& v) {
  v.status = status_from_json(json.at("status"));
  v.reason = json.at("reason").get<std::string>();
  v.base_seed = json.at("base_seed").get<uint64_t>();
  v.device = json.at("device").get<std::string>();
  v.log = json.at("log").get<std::string>();
  v.cases = json.at("cases").get<std::vector<CaseResult>>();
  if (json.contains("timing")) v.timing = json.at("timing").get<Timing>();
  else v.timing.reset();
  v.timing_error = json.value("timing_error", "");
  v.devices = json.value("devices", std::vector<std::string>());
  v.subgroup_sizes = json.value("subgroup_sizes", std::vector<uint32_t>());
  v.reduced = json.value("reduced_validation", std::vector<std::string>());
}

}  // namespace kernelgen
