#include "kernelgen/store/record.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include "kernelgen/store/files.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen {

using nlohmann::json;

std::string new_uuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t high = rng(), low = rng();
  high = (high & 0xffffffffffff0fffull) | 0x0000000000004000ull;  // version 4
  low = (low & 0x3fffffffffffffffull) | 0x8000000000000000ull;    // variant 1
  char text[40];
  std::snprintf(text, sizeof text, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(high >> 32),
                static_cast<unsigned long long>((high >> 16) & 0xffff), static_cast<unsigned long long>(high & 0xffff),
                static_cast<unsigned long long>(low >> 48), static_cast<unsigned long long>(low & 0xffffffffffffull));
  return text;
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  char full[48];
  std::snprintf(full, sizeof full, "%s.%03lldZ", text, static_cast<long long>(millis));
  return full;
}

namespace {

json prompt_json(const llm::Prompt& prompt) {
  return {{"system", prompt.system}, {"user", prompt.user}, {"template_version", prompt.template_version}};
}

json usage_json(const llm::Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"reasoning_tokens", usage.reasoning_tokens}};
}

json cost_json(const std::optional<double>& cost) { return cost ? json(*cost) : json("unknown"); }

}  // namespace

std::string CandidateRecord::file_name() const {
  const std::string candidate = content_hash(uuid + glsl + completion.text).substr(0, 8);
  return std::string(correct() ? "c_" : "r_") + spec_slug(spec) + "_h" + spec_hash.substr(0, 8) + "_" + candidate +
         ".json";
}

json to_json(const CandidateRecord& r) {
  const auto optional = [](const std::optional<double>& value) { return value ? json(*value) : json(); };
  return {{"uuid", r.uuid},
          {"timestamp", r.timestamp},
          {"status", r.correct() ? "correct" : "rejected"},
          {"verdict_status", status_name(r.verdict.status)},
          {"op", r.op},
          {"spec", to_json(r.spec)},
          {"spec_hash", r.spec_hash},
          {"reference_hash", r.reference_hash},
          {"model", r.model},
          {"author", r.author},
          {"round", r.round},
          {"sample", r.sample},
          {"origin", r.origin},
          {"parent", r.parent.empty() ? json() : json(r.parent)},
          {"idea", r.idea.empty() ? json() : json(r.idea)},
          {"optimisation_round", r.optimisation_round},
          {"speedup_over_first_correct", optional(r.speedup_over_first_correct)},
          {"speedup_over_parent", optional(r.speedup_over_parent)},
          {"prompt", prompt_json(r.prompt)},
          {"completion",
           {{"text", r.completion.text},
            {"finish_reason", r.completion.finish_reason},
            {"model", r.completion.model},
            {"attempts", r.completion.attempts},
            {"raw", r.completion.raw}}},
          {"usage", usage_json(r.completion.usage)},
          {"cost_usd", cost_json(r.cost_usd)},
          {"llm_seconds", r.llm_seconds},
          {"glsl", r.glsl},
          {"spirv_hash", r.spirv_hash},
          {"verdict", r.verdict},
          {"validation_seconds", r.validation_seconds},
          {"device", r.verdict.device}};
}

std::string IdeasRecord::file_name() const {
  return "i_" + op + "_h" + spec_hash.substr(0, 8) + "_" + content_hash(uuid + completion.text).substr(0, 8) + ".json";
}

json to_json(const IdeasRecord& r) {
  return {{"uuid", r.uuid},
          {"timestamp", r.timestamp},
          {"kind", "ideas"},
          {"op", r.op},
          {"spec_hash", r.spec_hash},
          {"model", r.model},
          {"author", r.completion.author},
          {"optimisation_round", r.optimisation_round},
          {"origin", r.origin},
          {"parent", r.parent},
          {"prompt", prompt_json(r.prompt)},
          {"completion", {{"text", r.completion.text}, {"finish_reason", r.completion.finish_reason}}},
          {"usage", usage_json(r.completion.usage)},
          {"cost_usd", cost_json(r.cost_usd)},
          {"llm_seconds", r.llm_seconds},
          {"ideas", r.ideas},
          {"error", r.error.empty() ? json() : json(r.error)}};
}

std::filesystem::path write_ideas_record(const std::filesystem::path& directory, const IdeasRecord& record) {
  const auto path = directory / record.file_name();
  write_file_atomic(path, to_json(record).dump(2) + "\n");
  return path;
}

std::filesystem::path write_record(const std::filesystem::path& directory, const CandidateRecord& record) {
  const auto path = directory / record.file_name();
  write_file_atomic(path, to_json(record).dump(2) + "\n");
  return path;
}

std::vector<json> load_records(const std::filesystem::path& directory, bool with_ideas) {
  std::vector<json> records;
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) return records;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    const bool candidate = name.rfind("c_", 0) == 0 || name.rfind("r_", 0) == 0;
    if (entry.path().extension() != ".json" || !(candidate || (with_ideas && name.rfind("i_", 0) == 0))) continue;
    try {
      json record = json::parse(read_file(entry.path()));
      if (!record.is_object() || !record.contains("uuid")) throw std::runtime_error("not a candidate record");
      // The records are sorted by it below, where a number would throw and lose every record, not just this one.
      if (record.contains("timestamp") && !record["timestamp"].is_string())
        throw std::runtime_error("its timestamp is not a string");
      record["file"] = name;
      records.push_back(std::move(record));
    } catch (const std::exception& failure) {
      std::fprintf(stderr, "kernelgen: skipping %s: %s\n", entry.path().c_str(), failure.what());
    }
  }
  std::sort(records.begin(), records.end(), [](const json& a, const json& b) {
    return a.value("timestamp", "") < b.value("timestamp", "");
  });
  return records;
}

}  // namespace kernelgen
