#include "kernelgen/log_commands.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "kernelgen/record.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::optional<double> median_ns(const json& record) {
  const json& verdict = record.value("verdict", json::object());
  if (!verdict.contains("timing") || !verdict["timing"].is_object()) return std::nullopt;
  return verdict["timing"].value("median_ns", 0.0);
}

}  // namespace

std::string list_records(const std::filesystem::path& log_dir, const std::string& status, const std::string& op) {
  std::string text;
  for (const json& record : load_records(log_dir)) {
    if (!status.empty() && record.value("status", "") != status) continue;
    if (!op.empty() && record.value("op", "") != op) continue;
    const auto time = median_ns(record);
    text += pad(record.value("file", ""), 72) + " " + pad(record.value("verdict_status", ""), 20) + " " +
            pad(record.value("author", ""), 28) + " round " + std::to_string(record.value("round", 0)) +
            (time ? format("  %.1f us", *time / 1e3) : "") + "\n";
  }
  return text.empty() ? "no records in " + log_dir.string() + "\n" : text;
}

namespace {

// One line of a lineage: "c_relu_..json  round 3 (optimisation 1)  12.3 us  1.80x its parent  idea: ..."
std::string lineage_line(const json& record) {
  std::string line = "  " + record.value("file", "") + "  round " + std::to_string(record.value("round", 0));
  if (const int round = record.value("optimisation_round", 0); round > 0)
    line += " (optimisation " + std::to_string(round) + ")";
  line += "  " + record.value("verdict_status", "");
  if (const auto time = median_ns(record)) line += format("  %.1f us", *time / 1e3);
  if (record.contains("speedup_over_parent") && record["speedup_over_parent"].is_number())
    line += format("  %.2fx its parent", record["speedup_over_parent"].get<double>());
  if (record.contains("idea") && record["idea"].is_string()) line += "\n      idea: " + record["idea"].get<std::string>();
  return line + "\n";
}

}  // namespace

std::string show_record(const std::filesystem::path& log_dir, const std::string& which) {
  std::vector<json> records = load_records(log_dir, true);
  std::vector<const json*> matches;
  for (const json& record : records) {
    const std::string file = record.value("file", "");
    if (file == which || file == which + ".json" || file.rfind(which, 0) == 0 || record.value("uuid", "") == which)
      matches.push_back(&record);
  }
  if (matches.empty()) throw std::invalid_argument("no record in " + log_dir.string() + " matches '" + which + "'");
  if (matches.size() > 1)
    throw std::invalid_argument(std::to_string(matches.size()) + " records match '" + which + "'; give more of the name");
  std::string text = matches.front()->dump(2) + "\n\nlineage (this record first, then each parent):\n";
  std::vector<std::string> seen;
  for (const json* record = matches.front(); record;) {
    text += lineage_line(*record);
    seen.push_back(record->value("uuid", ""));
    const json& parent = record->value("parent", json());
    if (!parent.is_string()) break;
    const json* next = nullptr;
    for (const json& candidate : records)
      if (candidate.value("uuid", "") == parent.get<std::string>()) next = &candidate;
    if (!next) {
      text += "  " + parent.get<std::string>() + " (not in this log)\n";
      break;
    }
    if (std::find(seen.begin(), seen.end(), next->value("uuid", "")) != seen.end()) break;
    record = next;
  }
  return text;
}

json report_summary(const std::filesystem::path& log_dir) {
  struct Row {
    int candidates = 0, accepted = 0, rounds = 0, optimisation_rounds = 0, brainstorms = 0, failed_brainstorms = 0;
    int correction_rounds = 0;  // the last round before the optimisation rounds
    std::optional<double> first_correct_ns, best_ns, best_fraction;
    std::vector<double> correct_ns;
    std::map<int, std::pair<int, int>> per_round;  // round -> candidates, correct
    int64_t tokens = 0;
    double cost = 0;
    bool cost_unknown = false;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const json& record : load_records(log_dir, true)) {
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
      const json& timing = record["verdict"]["timing"];
      row.best_fraction.reset();
      if (timing.contains("fraction_of_peak") && timing["fraction_of_peak"].is_number())
        row.best_fraction = timing["fraction_of_peak"].get<double>();
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
    summary.push_back({{"op", key.first},
                       {"model", key.second},
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
                       {"fraction_of_peak", row.best_fraction ? json(*row.best_fraction) : json()},
                       {"per_round", per_round},
                       {"correct_speedups", speedups},
                       {"tokens", row.tokens},
                       {"cost_usd", row.cost_unknown ? json("unknown") : json(row.cost)}});
  }
  return summary;
}

std::string report_records(const std::filesystem::path& log_dir) {
  const json summary = report_summary(log_dir);
  if (summary.empty()) return "no records in " + log_dir.string() + "\n";
  const auto time = [](const json& us) { return us.is_number() ? format("%.1f us", us.get<double>()) : "-"; };
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
    const int optimisation_rounds = row["optimisation_rounds"];
    std::string rounds = std::to_string(row["rounds"].get<int>() - optimisation_rounds);
    if (optimisation_rounds > 0) rounds.append("+").append(std::to_string(optimisation_rounds));
    text += pad(row["op"], op_width) + pad(row["model"], model_width) +
            pad(std::to_string(candidates), 12) + pad(std::to_string(accepted), 10) +
            pad(candidates ? format("%.0f%%", 100.0 * accepted / candidates) : "-", 8) + pad(rounds, 8) +
            pad(time(row["first_correct_us"]), 13) + pad(time(row["best_us"]), 13) +
            pad(row["speedup"].is_number() ? format("%.2fx", row["speedup"].get<double>()) : "-", 9) +
            pad(row["fraction_of_peak"].is_number() ? format("%.1f%%", 100 * row["fraction_of_peak"].get<double>()) : "-",
                8) +
            pad(std::to_string(row["tokens"].get<int64_t>()), 10) +
            (row["cost_usd"].is_number() ? format("$%.4f", row["cost_usd"].get<double>()) : "unknown") + "\n";
  }
  return text;
}

}  // namespace kernelgen
