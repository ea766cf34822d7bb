#include "kernelgen/report/log_commands.hpp"

#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/validation/protocol.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "kernelgen/report/format_number.hpp"
#include "kernelgen/store/record.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::optional<double> median_ns(const json& record) {
  const json& verdict = record.value("verdict", json::object());
  if (!verdict.contains("timing") || !verdict["timing"].is_object()) return std::nullopt;
  return verdict["timing"].value("median_ns", 0.0);
}

std::string no_records(const std::filesystem::path& log_dir) {
  std::error_code error;
  if (std::filesystem::is_directory(log_dir, error)) return "no records in " + log_dir.string() + "\n";
  return "no records in " + log_dir.string() +
         ": no such directory (a build step that searches writes the candidate log there; --log-dir or "
         "$KERNELGEN_CACHE_DIR names another)\n";
}

}  // namespace

json list_summary(const std::filesystem::path& log_dir, const std::string& status, const std::string& op) {
  json rows = json::array();
  for (const json& record : load_records(log_dir)) {
    if (!status.empty() && record.value("status", "") != status) continue;
    if (!op.empty() && record.value("op", "") != op) continue;
    const auto time = median_ns(record);
    rows.push_back({{"file", record.value("file", "")},
                    {"uuid", record.value("uuid", "")},
                    {"op", record.value("op", "")},
                    {"status", record.value("status", "")},
                    {"verdict_status", record.value("verdict_status", "")},
                    {"model", record.value("model", "")},
                    {"author", record.value("author", "")},
                    {"round", record.value("round", 0)},
                    {"optimisation_round", record.value("optimisation_round", 0)},
                    {"median_us", time ? json(*time / 1e3) : json()}});
  }
  return rows;
}

std::string list_records(const std::filesystem::path& log_dir, const std::string& status,
                         const std::string& op) {
  std::string text;
  for (const json& row : list_summary(log_dir, status, op))
    text += pad(row["file"], 72) + " " + pad(row["verdict_status"], 20) + " " + pad(row["author"], 28) +
            " round " + std::to_string(row["round"].get<int>()) +
            (row["median_us"].is_number() ? format_number("  %.1f us", row["median_us"].get<double>()) : "") +
            "\n";
  return text.empty() ? no_records(log_dir) : text;
}

namespace {

// A record's place in a lineage: what `kernelgen show` lists for it and each of its ancestors.
json lineage_entry(const json& record) {
  const auto time = median_ns(record);
  const json& speedup = record.value("speedup_over_parent", json());
  const json& idea = record.value("idea", json());
  return {{"file", record.value("file", "")},
          {"uuid", record.value("uuid", "")},
          {"round", record.value("round", 0)},
          {"optimisation_round", record.value("optimisation_round", 0)},
          {"verdict_status", record.value("verdict_status", "")},
          {"median_us", time ? json(*time / 1e3) : json()},
          {"speedup_over_parent", speedup.is_number() ? speedup : json()},
          {"idea", idea.is_string() ? idea : json()}};
}

// One line of a lineage: "c_relu_..json  round 3 (optimisation 1)  12.3 us  1.80x its parent  idea: ..."
std::string lineage_line(const json& entry) {
  if (!entry.value("in_log", true)) return "  " + entry["uuid"].get<std::string>() + " (not in this log)\n";
  std::string line =
      "  " + entry["file"].get<std::string>() + "  round " + std::to_string(entry["round"].get<int>());
  if (const int round = entry["optimisation_round"]; round > 0)
    line += " (optimisation " + std::to_string(round) + ")";
  line += "  " + entry["verdict_status"].get<std::string>();
  if (entry["median_us"].is_number()) line += format_number("  %.1f us", entry["median_us"].get<double>());
  if (entry["speedup_over_parent"].is_number())
    line += format_number("  %.2fx its parent", entry["speedup_over_parent"].get<double>());
  if (entry["idea"].is_string()) line += "\n      idea: " + entry["idea"].get<std::string>();
  return line + "\n";
}

}  // namespace

json show_summary(const std::filesystem::path& log_dir, const std::string& which) {
  std::vector<json> records = load_records(log_dir, true);
  std::vector<const json*> matches;
  for (const json& record : records) {
    const std::string file = record.value("file", "");
    if (file == which || file == which + ".json" || file.rfind(which, 0) == 0 || record.value("uuid", "") == which)
      matches.push_back(&record);
  }
  if (matches.empty())
    throw std::invalid_argument("no record in " + log_dir.string() + " matches '" + which +
                                "'; `kernelgen list --log-dir " + log_dir.string() + "` lists them");
  if (matches.size() > 1)
    throw std::invalid_argument(std::to_string(matches.size()) + " records match '" + which + "'; give more of the name");
  json lineage = json::array();
  std::vector<std::string> seen;
  for (const json* record = matches.front(); record;) {
    lineage.push_back(lineage_entry(*record));
    seen.push_back(record->value("uuid", ""));
    const json& parent = record->value("parent", json());
    if (!parent.is_string()) break;
    const json* next = nullptr;
    for (const json& candidate : records)
      if (candidate.value("uuid", "") == parent.get<std::string>()) next = &candidate;
    if (!next) {
      lineage.push_back({{"uuid", parent}, {"in_log", false}});
      break;
    }
    if (std::find(seen.begin(), seen.end(), next->value("uuid", "")) != seen.end()) break;
    record = next;
  }
  return {{"record", *matches.front()}, {"lineage", lineage}};
}

std::string show_record(const std::filesystem::path& log_dir, const std::string& which) {
  const json shown = show_summary(log_dir, which);
  std::string text = shown["record"].dump(2) + "\n\nlineage (this record first, then each parent):\n";
  for (const json& entry : shown["lineage"]) text += lineage_line(entry);
  return text;
}

json report_summary(const std::filesystem::path& log_dir) {
  struct Row {
    int candidates = 0, accepted = 0, rounds = 0, optimisation_rounds = 0, brainstorms = 0, failed_brainstorms = 0;
    int correction_rounds = 0;  // the last round before the optimisation rounds
    std::optional<double> first_correct_ns, best_ns;
    const json* best = nullptr;  // the fastest correct record: the kernel a search checks in
    std::vector<double> correct_ns;
    std::map<int, std::pair<int, int>> per_round;  // round -> candidates, correct
    int64_t tokens = 0;
    double cost = 0;
    bool cost_unknown = false;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  const std::vector<json> records = load_records(log_dir, true);
  for (const json& record : records) {
    const std::string who = record.value("model", "").empty() ? record.value("author", "") : record.value("model", "");
    Row& row = rows[{record.value("op", ""), who}];
    const json& usage = record.value("usage", json::object());
    row.tokens += usage.value("prompt_tokens", int64_t{0}) + usage.value("completion_tokens", int64_t{0});
    const json& cost = record.value("cost_usd", json());
    if (cost.is_number()) row.cost += cost.get<double>();
    else row.cost_unknown = true;
    row.optimisation_rounds = std::max(row.optimisation_rounds, record.value("optimisation_round", 0));
    if (record.value("kind", "") == "ideas") {
      ++row.brainstorms;
      if (!record.value("error", json()).is_null()) ++row.failed_brainstorms;
      continue;
    }
    ++row.candidates;
    const int round = record.value("round", 0);
    row.rounds = std::max(row.rounds, round);
    if (record.value("optimisation_round", 0) == 0) row.correction_rounds = std::max(row.correction_rounds, round);
    const bool correct = record.value("status", "") == "correct";
    ++row.per_round[round].first;
    if (!correct) continue;
    ++row.accepted;
    ++row.per_round[round].second;
    const auto time = median_ns(record);
    if (!time) continue;
    row.correct_ns.push_back(*time);
    if (record.value("optimisation_round", 0) == 0 && (!row.first_correct_ns || *time < *row.first_correct_ns))
      row.first_correct_ns = time;
    if (!row.best_ns || *time < *row.best_ns) {
      row.best_ns = time;
      row.best = &record;
    }
  }
  const auto microseconds = [](const std::optional<double>& ns) { return ns ? json(*ns / 1e3) : json(); };
  json summary = json::array();
  for (const auto& [key, row] : rows) {
    json per_round = json::array();
    for (const auto& [round, counts] : row.per_round)
      per_round.push_back({{"round", round}, {"candidates", counts.first}, {"correct", counts.second}});
    json speedups = json::array();
    if (row.first_correct_ns)
      for (double ns : row.correct_ns) speedups.push_back(*row.first_correct_ns / ns);
    const bool both = row.first_correct_ns && row.best_ns;
    const json timing = row.best ? (*row.best)["verdict"]["timing"] : json::object();
    const auto rate = [&](const char* field) {
      return timing.contains(field) && timing[field].is_number() ? timing[field] : json();
    };
    summary.push_back({{"op", key.first},
                       {"model", key.second},
                       {"status", row.accepted > 0 ? "correct" : "rejected"},
                       {"candidates", row.candidates},
                       {"accepted", row.accepted},
                       // An optimisation round whose brainstorm failed left no candidate to count it by.
                       {"rounds", std::max(row.rounds, row.correction_rounds + row.optimisation_rounds)},
                       {"optimisation_rounds", row.optimisation_rounds},
                       {"brainstorms", row.brainstorms},
                       {"failed_brainstorms", row.failed_brainstorms},
                       {"first_correct_us", microseconds(row.first_correct_ns)},
                       {"best_us", microseconds(row.best_ns)},
                       {"speedup", both ? json(*row.first_correct_ns / *row.best_ns) : json()},
                       {"fraction_of_peak", rate("fraction_of_peak")},
                       {"peaks_bound", timing.value("peaks_bound", true)},
                       {"best_record", row.best ? json((*row.best)["file"]) : json()},
                       {"device", timing.contains("device") ? timing["device"] : json()},
                       {"dims", timing.contains("dims") ? timing["dims"] : json()},
                       {"reduced_validation", row.best && (*row.best)["verdict"].contains("reduced_validation")
                                                  ? (*row.best)["verdict"]["reduced_validation"]
                                                  : json::array()},
                       {"gbytes_per_second", rate("gbytes_per_second")},
                       {"gflops", rate("gflops")},
                       {"per_round", per_round},
                       {"correct_speedups", speedups},
                       {"tokens", row.tokens},
                       {"cost_usd", row.cost_unknown ? json("unknown") : json(row.cost)}});
  }
  return summary;
}

bool beyond_peaks(const json& row) {
  return row.value("peaks_bound", true) && row["fraction_of_peak"].is_number() &&
         row["fraction_of_peak"].get<double>() > kImpossibleFractionOfPeak;
}

std::string rounds_text(const json& row) {
  const int optimisation_rounds = row["optimisation_rounds"];
  std::string rounds = std::to_string(row["rounds"].get<int>() - optimisation_rounds);
  if (optimisation_rounds > 0) rounds.append("+").append(std::to_string(optimisation_rounds));
  return rounds;
}

std::string report_records(const std::filesystem::path& log_dir) {
  const json summary = report_summary(log_dir);
  if (summary.empty()) return no_records(log_dir);
  const auto time = [](const json& us) {
    return us.is_number() ? format_number("%.1f us", us.get<double>()) : "-";
  };
  // The op and model columns are as wide as their longest entry (at least the 14 and 28 of short names).
  size_t op_width = 14, model_width = 28;
  for (const json& row : summary) {
    op_width = std::max(op_width, row["op"].get<std::string>().size() + 2);
    model_width = std::max(model_width, row["model"].get<std::string>().size() + 2);
  }
  std::string text = pad("op", op_width) + pad("model", model_width) + pad("candidates", 12) + pad("accepted", 10) + pad("rate", 8) +
                     pad("rounds", 8) + pad("first", 13) + pad("best", 13) + pad("speedup", 9) + pad("peak", 8) +
                     pad("tokens", 10) + "cost\n";
  for (const json& row : summary) {
    const int candidates = row["candidates"], accepted = row["accepted"];
    text +=
        pad(row["op"], op_width) + pad(row["model"], model_width) + pad(std::to_string(candidates), 12) +
        pad(std::to_string(accepted), 10) +
        pad(candidates ? format_number("%.0f%%", 100.0 * accepted / candidates) : "-", 8) +
        pad(rounds_text(row), 8) + pad(time(row["first_correct_us"]), 13) + pad(time(row["best_us"]), 13) +
        pad(row["speedup"].is_number() ? format_number("%.2fx", row["speedup"].get<double>()) : "-", 9) +
        pad(row["fraction_of_peak"].is_number()
                ? format_number("%.1f%%", 100 * row["fraction_of_peak"].get<double>()) +
                      (beyond_peaks(row) ? "!" : "")
                : "-",
            8) +
        pad(std::to_string(row["tokens"].get<int64_t>()), 10) +
        (row["cost_usd"].is_number() ? format_number("$%.4f", row["cost_usd"].get<double>()) : "unknown") +
        "\n";
  }
  // Kernels validated with less than the full protocol (validation/protocol.hpp), as the build accepted.
  for (const json& row : summary)
    if (!row["reduced_validation"].empty())
      text += "reduced validation: " + row["op"].get<std::string>() + ": " +
              describe_missing(row["reduced_validation"].get<std::vector<std::string>>()) + "\n";
  // Timings beyond the device's peaks, which no kernel can reach: each op marked "!" above, said again here.
  for (const json& row : summary)
    if (beyond_peaks(row))
      text +=
          "! " + row["op"].get<std::string>() + ": its best time is " +
          format_number("%.0f%%", 100 * row["fraction_of_peak"].get<double>()) +
          " of the device's measured peaks: faster than the device can be; does the kernel skip work, or do "
          "BYTES or FLOPS overstate it?\n";
  return text;
}

}  // namespace kernelgen
