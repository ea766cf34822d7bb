#include "kernelgen/report/report_html.hpp"

#include "kernelgen/optimise/device_peaks.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "kernelgen/report/format_number.hpp"
#include "kernelgen/report/log_commands.hpp"
#include "kernelgen/report/markup.hpp"
#include "kernelgen/report/roofline_svg.hpp"
#include "kernelgen/store/record.hpp"

namespace kernelgen {

using nlohmann::json;

namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; }
p.note { max-width: 60em; color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { padding: 0.25em 0.45em; border-bottom: 1px solid #ddd; text-align: left; white-space: nowrap; }
th { background: #f0f0f0; white-space: normal; vertical-align: bottom; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
td.correct { color: #1e8449; font-weight: bold; }
td.rejected { color: #c0392b; font-weight: bold; }
svg.roofline { max-width: 100%; height: auto; border: 1px solid #eee; }
)";

// A number of the summary in `pattern`, or "-" where it is missing (null) or, for rates, zero.
std::string figure(const json& value, const char* pattern, double scale = 1) {
  return value.is_number() && value.get<double>() != 0 ? format_number(pattern, value.get<double>() * scale)
                                                       : "-";
}

// A rate with three significant figures at most, and at least one decimal above 1: 233, 4.9, 0.012 (lavapipe
// moves some ops' bytes at a few MB/s, which "%.1f" would print as 0.0).
std::string rate(const json& value, const char* unit = "") {
  if (!value.is_number() || value.get<double>() == 0) return "-";
  const double v = value.get<double>();
  return format_number(v >= 100 ? "%.0f" : v >= 1 ? "%.1f" : "%.2g", v) + unit;
}

std::string cell(const std::string& text, const char* css_class = nullptr, const std::string& title = "") {
  std::string html = "<td";
  if (css_class) html += std::string(" class=\"") + css_class + "\"";
  if (!title.empty()) html += " title=\"" + escape_markup(title) + "\"";
  return html + ">" + escape_markup(text) + "</td>";
}

std::string text_of(const json& value) {
  return value.is_string() ? value.get<std::string>() : "";
}

std::string table(const json& summary) {
  std::string html =
      "<table class=\"ops\">\n<thead><tr><th>op</th><th>status</th><th>model</th><th>correct/candidates</th>"
      "<th>rounds</th><th>tokens</th><th>cost</th><th>time</th><th>GB/s</th><th>GFLOP/s</th><th>% of "
      "peak</th>"
      "<th>speed-up</th></tr></thead>\n<tbody>\n";
  for (const json& row : summary) {
    const std::string status = row["status"];
    const std::string dims = text_of(row["dims"]);
    html +=
        "<tr>" + cell(row["op"]) +
        cell(status == "correct" ? "correct" : "no correct kernel",
             status == "correct" ? "correct" : "rejected") +
        cell(row["model"]) +
        cell(std::to_string(row["accepted"].get<int>()) + "/" + std::to_string(row["candidates"].get<int>()),
             "number", "correct candidates of all") +
        cell(rounds_text(row), "number") + cell(std::to_string(row["tokens"].get<int64_t>()), "number") +
        cell(row["cost_usd"].is_number() ? format_number("$%.4f", row["cost_usd"].get<double>()) : "unknown",
             "number") +
        cell(figure(row["best_us"], "%.1f us"), "number", dims.empty() ? "" : "timed at " + dims) +
        cell(rate(row["gbytes_per_second"]), "number") + cell(rate(row["gflops"]), "number") +
        cell(figure(row["fraction_of_peak"], "%.1f%%", 100) + (beyond_peaks(row) ? "!" : ""), "number",
             beyond_peaks(row)
                 ? "faster than the device's measured peaks can be: does the kernel skip work, or do "
                   "BYTES or FLOPS overstate it?"
                 : "") +
        cell(figure(row["speedup"], "%.2fx"), "number", "the best kernel against the first correct one") +
        "</tr>\n";
  }
  return html + "</tbody>\n</table>\n";
}

// The measured peaks of the device named `device` (a timing's device name; the cache keys add driver and
// Vulkan version).
std::optional<DevicePeaks> peaks_of(const std::vector<DevicePeaks>& peaks, const std::string& device) {
  for (const DevicePeaks& entry : peaks)
    if (entry.device.rfind(device + " | ", 0) == 0) return entry;
  return std::nullopt;
}

std::string chart(const json& summary, const std::string& device, const std::optional<DevicePeaks>& peaks) {
  std::vector<RooflineKernel> kernels;
  for (const json& row : summary) {
    if (text_of(row["device"]) != device || !row["gbytes_per_second"].is_number()) continue;
    int same_op = 0;
    for (const json& other : summary)
      same_op += other["op"] == row["op"] && text_of(other["device"]) == device;
    const std::string op = row["op"];
    std::string detail = figure(row["best_us"], "%.1f us");
    if (!text_of(row["dims"]).empty()) detail += " at " + text_of(row["dims"]);
    for (const std::string& part : {rate(row["gbytes_per_second"], " GB/s"), rate(row["gflops"], " GFLOP/s"),
                                    figure(row["fraction_of_peak"], "%.1f%% of peak", 100)})
      if (part != "-") detail += ", " + part;
    kernels.push_back({same_op > 1 ? op + " (" + row["model"].get<std::string>() + ")" : op, detail,
                       row["gbytes_per_second"].get<double>(),
                       row["gflops"].is_number() ? row["gflops"].get<double>() : 0.0});
  }
  std::string html =
      "<h2>Roofline: " + escape_markup(device) + "</h2>\n" + roofline_svg(layout_roofline(kernels, peaks)) +
      "<p class=\"note\">Each filled point is an op's " +
      "fastest correct kernel at its timed size: its FLOP rate against its arithmetic intensity " +
      "(GFLOP/s over GB/s). Hollow points are ops that declare no FLOPS: they stand on the left " +
      "edge at their GB/s times that edge's FLOP/byte, so their distance below the bandwidth " +
      "ceiling is their fraction of the peak bandwidth. ";
  html += peaks
              ? "The ceilings are the device's measured peaks (kernelgen's copy and f32 FMA probe kernels, " +
                    escape_markup(peaks->device) + ")."
              : "This device's peaks were not measured (no entry in device_peaks.json), so no ceilings are "
                "drawn.";
  return html + "</p>\n";
}

}  // namespace

std::string report_html(const json& summary, const std::vector<DevicePeaks>& peaks,
                        const std::filesystem::path& log_dir) {
  int candidates = 0, accepted = 0;
  std::set<std::string> ops;         // a row is an op and a model: an op that two models searched has two
  std::vector<std::string> devices;  // in order of first appearance
  for (const json& row : summary) {
    ops.insert(row["op"].get<std::string>());
    candidates += row["candidates"].get<int>();
    accepted += row["accepted"].get<int>();
    const std::string device = text_of(row["device"]);
    if (!device.empty() && std::find(devices.begin(), devices.end(), device) == devices.end())
      devices.push_back(device);
  }
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>kernelgen report</title>\n<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>kernelgen report</h1>\n<p>Candidate log <code>" +
      escape_markup(log_dir.string()) + "</code>: " + std::to_string(ops.size()) + " ops, " +
      std::to_string(candidates) + " candidates, " + std::to_string(accepted) + " correct. Written " +
      utc_timestamp() + ".</p>\n";
  if (summary.empty()) return html + "<p>No records in this log.</p>\n</body>\n</html>\n";
  for (const std::string& device : devices) html += chart(summary, device, peaks_of(peaks, device));
  if (devices.empty())
    html += "<p>No correct kernel was timed: there is nothing to place on a roofline.</p>\n";
  html +=
      "<h2>Per op</h2>\n" + table(summary) +
      "<p class=\"note\">time: the fastest correct kernel's median GPU time at the op's timed size (hover "
      "for the "
      "size); speed-up: that time against the first correct kernel's; % of peak: the larger of its bandwidth "
      "and FLOP rate as fractions of the device's measured peaks.</p>\n";
  return html + "</body>\n</html>\n";
}

std::string report_html(const std::filesystem::path& log_dir) {
  return report_html(report_summary(log_dir), read_device_peaks(log_dir / "device_peaks.json"), log_dir);
}

}  // namespace kernelgen
