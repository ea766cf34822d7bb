#pragma once
#include <filesystem>
#include <string>

namespace kernelgen {

// The candidate log, read back: `kernelgen list`, `kernelgen show`, `kernelgen report`. Each returns the text
// to print.
std::string list_records(const std::filesystem::path& log_dir, const std::string& status, const std::string& op);
// A record by file name (with or without .json), a unique prefix of one, or a uuid. Throws when none or several match.
std::string show_record(const std::filesystem::path& log_dir, const std::string& which);
// Per op and model: candidates, accepted, success rate, rounds, best time, tokens, cost.
std::string report_records(const std::filesystem::path& log_dir);

}  // namespace kernelgen
