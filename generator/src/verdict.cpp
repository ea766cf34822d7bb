#include "kernelgen/verdict.hpp"

#include <cstdio>
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

std::string describe(const Verdict& verdict) {
  std::string text = std::string(status_name(verdict.status));
  if (!verdict.reason.empty()) text += ": " + verdict.reason;
  text += "\n";
  for (const CaseResult& c : verdict.cases) {
    text += "  " + std::string(c.status == Status::PASSED ? "ok  " : "FAIL") + " " + c.name;
    if (c.comparison.elements > 0)
      text += format("  max abs err %.3g, max rel err %.3g", c.comparison.max_abs_error, c.comparison.max_rel_error);
    if (c.status != Status::PASSED) text += "  [" + std::string(status_name(c.status)) + "] " + c.detail;
    text += "\n";
  }
  if (!verdict.log.empty()) text += verdict.log + (verdict.log.back() == '\n' ? "" : "\n");
  if (verdict.timing)
    text += format("  GPU time: median %.1f us", verdict.timing->median_ns / 1e3, 0) +
            format(", %.1f GB/s, %.1f GFLOP/s", verdict.timing->gbytes_per_second, verdict.timing->gflops) + " on " +
            verdict.timing->device + "\n";
  if (!verdict.cases.empty()) text += "  replay with KERNELGEN_SEED=" + std::to_string(verdict.base_seed) + "\n";
  return text;
}

void to_json(nlohmann::json& json, const Timing& t) {
  json = {{"device", t.device},
          {"runs", t.runs},
          {"median_ns", t.median_ns},
          {"min_ns", t.min_ns},
          {"gbytes_per_second", t.gbytes_per_second},
          {"gflops", t.gflops}};
}

void to_json(nlohmann::json& json, const Verdict& v) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : v.cases)
    cases.push_back({{"name", c.name},
                     {"seed", c.seed},
                     {"status", status_name(c.status)},
                     {"tensor", c.tensor},
                     {"detail", c.detail},
                     {"comparison", c.comparison}});
  json = {{"status", status_name(v.status)}, {"reason", v.reason}, {"base_seed", v.base_seed},
          {"device", v.device},              {"log", v.log},       {"cases", cases}};
  if (v.timing) json["timing"] = *v.timing;
}

}  // namespace kernelgen
