#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgen/optimise/device_peaks.hpp"

namespace kernelgen {

// `kernelgen report --html`: one self-contained page (inline CSS and SVG, system fonts; it fetches nothing)
// with a roofline chart per device the best kernels were timed on, its ceilings from `peaks` when that
// device's were measured, and the per-op table of `summary` (report_summary): status, model, candidates,
// rounds, tokens, cost, the best kernel's time, GB/s, GFLOP/s, % of peak and speed-up. `log_dir` is named in
// the heading.
std::string report_html(const nlohmann::json& summary, const std::vector<DevicePeaks>& peaks,
                        const std::filesystem::path& log_dir);

// The page of a candidate log: its report_summary and the peaks in <log_dir>/device_peaks.json.
std::string report_html(const std::filesystem::path& log_dir);

}  // namespace kernelgen
