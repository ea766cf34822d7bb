#include "kernelgen/optimise/optimise_prompts.hpp"

#include <algorithm>
#include <cstdio>

#include "embedded_text.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/hash.hpp"

namespace kernelgen {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string roofline_text(const OpSpec& spec, const DeviceInfo& device, const std::optional<DevicePeaks>& peaks) {
  const DimValues dims = spec.bench_dims(is_cpu_device(device));
  const double bytes = spec.bytes_at(dims), flops = spec.flops_at(dims);
  std::string text = "At the timed size the op moves " + format("%.3g", bytes / 1e6) + " MB";
  text += flops > 0 ? " and does " + format("%.3g", flops / 1e6) + " MFLOP (" + format("%.3g", flops / bytes) +
                          " FLOP per byte)."
                    : " and does no counted floating-point work.";
  if (!peaks) return text + "\nThe device's peaks are not known.";
  const double ridge = peaks->gflops / peaks->gbytes_per_second;
  const double floor_ns = std::max(bytes / peaks->gbytes_per_second, flops / peaks->gflops);
  text += "\nMeasured peaks of this device: copy bandwidth " + format("%.1f", peaks->gbytes_per_second) +
          " GB/s, f32 FMA " + format("%.1f", peaks->gflops) + " GFLOP/s; the ridge point is " + format("%.3g", ridge) +
          " FLOP per byte, so this op is " + (flops / bytes < ridge ? "memory-bound" : "compute-bound") +
          " and cannot take less than " + format("%.3g", floor_ns / 1e3) + " us.";
  return text;
}

void replace_first(std::string& text, const std::string& placeholder, const std::string& value) {
  const size_t at = text.find(placeholder);
  if (at != std::string::npos) text.replace(at, placeholder.size(), value);
}

std::string tried_text(const std::vector<TriedIdea>& tried) {
  if (tried.empty()) return "";
  std::string text = "\n## Ideas already tried\n";
  for (const TriedIdea& idea : tried) text += "- " + idea.idea + "\n  Outcome: " + idea.outcome + "\n";
  return text;
}

}  // namespace

std::string optimise_prompt_version() {
  return "opt1-" +
         content_hash(std::string(kBrainstormSystemTemplate) + kBrainstormTemplate + kImplementTemplate).substr(0, 8);
}

std::string performance_text(const Timing& timing) {
  std::string text = "median " + format("%.1f", timing.median_ns / 1e3) + " us over " + std::to_string(timing.runs) +
                     " runs" + (timing.dims.empty() ? "" : " at " + timing.dims);
  const double spread = timing.stats().spread_ns();
  text += " (spread " + format("%.2f", spread / 1e3) + " us), " + format("%.3g", timing.gbytes_per_second) + " GB/s";
  if (timing.gflops > 0) text += ", " + format("%.3g", timing.gflops) + " GFLOP/s";
  if (timing.fraction_of_peak) text += ", " + format("%.1f", 100 * *timing.fraction_of_peak) + "% of the device's peak";
  // The driver's statistics of the compiled kernel (registers, shared memory...), where the device reports them:
  // what limits how many workgroups share a multiprocessor.
  if (!timing.pipeline.empty()) text += "; the driver's statistics of its pipeline: " + pipeline_text(timing.pipeline);
  return text;
}

llm::Prompt build_brainstorm_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                                    const std::optional<DevicePeaks>& peaks, const std::string& kernel,
                                    const Timing& timing, const std::vector<TriedIdea>& tried, int count) {
  const std::string user = fill_op_template(kBrainstormTemplate, spec, reference_text, device,
                                            {{"{{roofline}}", roofline_text(spec, device, peaks)},
                                             {"{{performance}}", "On this device: " + performance_text(timing) + "."},
                                             {"{{tried}}", tried_text(tried)},
                                             {"{{count}}", std::to_string(count)},
                                             {"{{kernel}}", kernel}});
  return {kBrainstormSystemTemplate, user, optimise_prompt_version()};
}

llm::Prompt build_implement_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                                   const std::string& kernel, const Timing& timing, const std::string& idea) {
  // The generation prompt, with the kernel and the idea where a round's feedback goes.
  std::string section = kImplementTemplate;
  replace_first(section, "{{performance}}", "It runs in " + performance_text(timing) + ".");
  // Model text, each placeholder replaced before earlier text could hold a copy of it.
  replace_first(section, "{{idea}}", idea);
  replace_first(section, "{{kernel}}", kernel);
  return {kSystemTemplate, fill_op_template(kUserTemplate, spec, reference_text, device, {{"{{feedback}}", section}}),
          optimise_prompt_version()};
}

}  // namespace kernelgen
