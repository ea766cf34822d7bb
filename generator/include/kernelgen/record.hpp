#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgen/llm/types.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/validation/verdict.hpp"

namespace kernelgen {

// One candidate of a search, accepted or not: the candidate log's unit (one JSON file each).
struct CandidateRecord {
  std::string uuid;
  std::string timestamp;  // UTC, ISO 8601
  std::string op;
  OpSpec spec;
  std::string spec_hash;
  std::string reference_hash;
  std::string model;   // provider/model that was asked
  std::string author;  // who wrote the completion: the model, or "hand-written" (cassettes, KERNEL files)
  int round = 0;
  int sample = 0;
  std::string origin;  // the KERNEL file of a declared candidate, or op/r<round>/s<sample> (the cassette key)
  std::string parent;  // the candidate whose feedback this one answers ("" in round 1)
  std::string idea;
  llm::Prompt prompt;
  llm::Completion completion;
  std::optional<double> cost_usd;  // nullopt: the model's price is unknown
  double llm_seconds = 0;
  std::string glsl;        // extracted shader ("" when extraction failed)
  std::string spirv_hash;  // "" when it did not compile
  Verdict verdict;
  double validation_seconds = 0;

  bool correct() const { return verdict.passed(); }
  // {c|r}_{op}_i{in}_o{out}_{params}_h{spec hash}_{candidate hash}.json, the seed's naming plus a candidate suffix.
  std::string file_name() const;
};

nlohmann::json to_json(const CandidateRecord& record);

// Writes the record atomically into the log directory; returns its path.
std::filesystem::path write_record(const std::filesystem::path& directory, const CandidateRecord& record);

// Every record in the directory, oldest first. Unreadable files are reported on stderr and skipped.
std::vector<nlohmann::json> load_records(const std::filesystem::path& directory);

std::string new_uuid();
std::string utc_timestamp();

}  // namespace kernelgen
