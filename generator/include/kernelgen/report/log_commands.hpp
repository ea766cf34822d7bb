#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kernelgen {

// The candidate log, read back: `kernelgen list`, `kernelgen show`, `kernelgen report`. Each command has a
// *_summary, the JSON document its --json prints, and a function that renders that summary as the text it
// prints otherwise. A log directory that does not exist reads as an empty log, and its text says so.

// One object per candidate record (not the brainstorms), oldest first, filtered by status (correct or
// rejected) and op when they are not empty: file, uuid, op, status, verdict_status, model, author, round,
// optimisation_round, median_us (null when untimed).
nlohmann::json list_summary(const std::filesystem::path& log_dir, const std::string& status,
                            const std::string& op);
std::string list_records(const std::filesystem::path& log_dir, const std::string& status,
                         const std::string& op);

// {"record": the whole record, "lineage": [...]} for a record named by file name (with or without .json), a
// unique prefix of one, or a uuid. The lineage is the chain of parents back to the round-1 sample it descends
// from, this record first, each with file, uuid, round, optimisation_round, verdict_status, median_us,
// speedup_over_parent and idea; a parent missing from the log ends it as {"uuid", "in_log": false}. Throws
// std::invalid_argument when no record or several match.
nlohmann::json show_summary(const std::filesystem::path& log_dir, const std::string& which);
std::string show_record(const std::filesystem::path& log_dir, const std::string& which);

// Per op and model, what `kernelgen report` prints: status (correct when a candidate passed, else rejected),
// candidates, accepted, rounds (correction and optimisation), the first correct kernel's time and the best
// time (microseconds, at BENCH_DIMS), the speed-up between them, and of the best kernel (best_record) its
// device, the dims it was timed at, GB/s, GFLOP/s (0 for an op without FLOPS) and fraction of the device's
// peak; tokens and cost; and for pass@k and fast_p: the correct candidates per round and every correct
// candidate's speed-up over the first correct one.
nlohmann::json report_summary(const std::filesystem::path& log_dir);
// A report_summary row's rounds as the report shows them: correction rounds, then "+" optimisation rounds
// ("2+1").
std::string rounds_text(const nlohmann::json& row);
// Whether a report_summary row's best time is beyond the device's measured peaks (kImpossibleFractionOfPeak),
// where they bound it (Timing::peaks_bound: on a GPU, not on a CPU device): "!" in the reports.
bool beyond_peaks(const nlohmann::json& row);
// report_summary as a table.
std::string report_records(const std::filesystem::path& log_dir);

}  // namespace kernelgen
