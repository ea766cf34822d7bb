#include "kernelgen/log_commands.hpp"

#include <cstdio>
#include <map>
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

std::string show_record(const std::filesystem::path& log_dir, const std::string& which) {
  std::vector<json> matches;
  for (json& record : load_records(log_dir)) {
    const std::string file = record.value("file", "");
    if (file == which || file == which + ".json" || file.rfind(which, 0) == 0 || record.value("uuid", "") == which)
      matches.push_back(std::move(record));
  }
  if (matches.empty()) throw std::invalid_argument("no record in " + log_dir.string() + " matches '" + which + "'");
  if (matches.size() > 1)
    throw std::invalid_argument(std::to_string(matches.size()) + " records match '" + which + "'; give more of the name");
  return matches.front().dump(2) + "\n";
}

std::string report_records(const std::filesystem::path& log_dir) {
  struct Row {
    int candidates = 0, accepted = 0, rounds = 0;
    std::optional<double> best_ns;
    int64_t tokens = 0;
    double cost = 0;
    bool cost_unknown = false;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const json& record : load_records(log_dir)) {
    const std::string who = record.value("model", "").empty() ? record.value("author", "") : record.value("model", "");
    Row& row = rows[{record.value("op", ""), who}];
    ++row.candidates;
    row.rounds = std::max(row.rounds, record.value("round", 0));
    if (record.value("status", "") == "correct") {
      ++row.accepted;
      if (auto time = median_ns(record); time && (!row.best_ns || *time < *row.best_ns)) row.best_ns = time;
    }
    const json& usage = record.value("usage", json::object());
    row.tokens += usage.value("prompt_tokens", int64_t{0}) + usage.value("completion_tokens", int64_t{0});
    const json& cost = record.value("cost_usd", json());
    if (cost.is_number()) row.cost += cost.get<double>();
    else row.cost_unknown = true;
  }
  if (rows.empty()) return "no records in " + log_dir.string() + "\n";
  std::string text = pad("op", 14) + pad("model", 28) + pad("candidates", 12) + pad("accepted", 10) + pad("rate", 8) +
                     pad("rounds", 8) + pad("best", 12) + pad("tokens", 10) + "cost\n";
  for (const auto& [key, row] : rows) {
    text += pad(key.first, 14) + pad(key.second.substr(0, 27), 28) + pad(std::to_string(row.candidates), 12) +
            pad(std::to_string(row.accepted), 10) +
            pad(format("%.0f%%", 100.0 * row.accepted / row.candidates), 8) + pad(std::to_string(row.rounds), 8) +
            pad(row.best_ns ? format("%.1f us", *row.best_ns / 1e3) : "-", 12) + pad(std::to_string(row.tokens), 10) +
            (row.cost_unknown ? "unknown" : format("$%.4f", row.cost)) + "\n";
  }
  return text;
}

}  // namespace kernelgen
