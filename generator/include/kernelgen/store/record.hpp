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
  // The uuid of the candidate this one answers: in a correction round the rejected one whose feedback it was
  // shown ("" in round 1), in an optimisation round the correct kernel it optimises.
  std::string parent;
  int optimisation_round = 0;  // 0: not an optimisation
  std::string idea;            // the optimisation it implements
  // Median time of the first correct kernel (or of the parent) over this one's, for a timed optimisation.
  std::optional<double> speedup_over_first_correct;
  std::optional<double> speedup_over_parent;
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

// One brainstorm call of an optimisation round: the ideas it gave, or why its answer held none. The log keeps
// them as i_ records beside the candidates, for their tokens and cost and for `kernelgen show`.
struct IdeasRecord {
  std::string uuid;
  std::string timestamp;
  std::string op;
  std::string spec_hash;
  std::string model;
  int optimisation_round = 0;
  std::string origin;  // the cassette key, <op>/o<round>/p<parent>/ideas
  std::string parent;  // the uuid of the kernel the ideas are for
  llm::Prompt prompt;
  llm::Completion completion;
  std::optional<double> cost_usd;
  double llm_seconds = 0;
  std::vector<std::string> ideas;
  std::string error;  // non-empty: no usable list

  std::string file_name() const;
};

nlohmann::json to_json(const IdeasRecord& record);
std::filesystem::path write_ideas_record(const std::filesystem::path& directory, const IdeasRecord& record);

// Writes the record atomically into the log directory; returns its path.
std::filesystem::path write_record(const std::filesystem::path& directory, const CandidateRecord& record);

// Every candidate record (c_, r_) in the directory, and the brainstorm records (i_) too when asked, oldest
// first. Unreadable files are reported on stderr and skipped.
std::vector<nlohmann::json> load_records(const std::filesystem::path& directory, bool with_ideas = false);

std::string new_uuid();
std::string utc_timestamp();

}  // namespace kernelgen
