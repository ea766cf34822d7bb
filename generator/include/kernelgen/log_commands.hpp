#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kernelgen {

// The candidate log, read back: `kernelgen list`, `kernelgen show`, `kernelgen report`. Each returns the text
// to print.
std::string list_records(const std::filesystem::path& log_dir, const std::string& status, const std::string& op);
// A record by file name (with or without .json), a unique prefix of one, or a uuid, followed by its lineage: the
// chain of parents back to the round-1 sample it descends from, each with its round, idea, time and speed-up.
// Throws when none or several match.
std::string show_record(const std::filesystem::path& log_dir, const std::string& which);

// Per op and model, what `kernelgen report` prints: candidates, accepted, rounds (correction and optimisation),
// the first correct kernel's time and the best time (microseconds, at BENCH_DIMS), the speed-up between them,
// the best's fraction of the device's peak, tokens and cost; and for pass@k and fast_p: the correct candidates
// per round and every correct candidate's speed-up over the first correct one.
nlohmann::json report_summary(const std::filesystem::path& log_dir);
// report_summary as a table.
std::string report_records(const std::filesystem::path& log_dir);

}  // namespace kernelgen
