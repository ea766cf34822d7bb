#include "kernelgen/selection/paired_timing.hpp"

#include <cstdio>

#include "kernelgen/timing.hpp"

namespace kernelgen {

namespace {

std::string microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", ns / 1e3);
  return text;
}

}  // namespace

PairedTiming time_in_pairs(const IsolationSettings& isolation, const OpSpec& spec, const std::string& challenger,
                           const std::string& incumbent, uint64_t base_seed, int timing_runs, int pairs) {
  IsolationSettings timing_device = isolation;
  if (timing_device.devices.size() > 1) timing_device.devices.resize(1);
  // Both passed every check already: these runs only time them, so no stress runs.
  const ValidationOptions options{base_seed, timing_runs, 0};
  PairedTiming result{true, "paired timings (challenger/checked-in, us):"};
  for (int pair = 0; pair < pairs; ++pair) {
    const Verdict incumbent_verdict = evaluate_isolated(timing_device, spec, incumbent, options);
    const Verdict challenger_verdict = evaluate_isolated(timing_device, spec, challenger, options);
    for (const Verdict* verdict : {&incumbent_verdict, &challenger_verdict}) {
      if (verdict->passed() && verdict->timing) continue;
      std::string why = verdict == &incumbent_verdict ? "timing the checked-in kernel again failed: "
                                                      : "timing the challenger again failed: ";
      if (!verdict->passed()) why.append(status_name(verdict->status)).append(": ").append(verdict->reason);
      else why.append(verdict->timing_error);
      return {false, why};
    }
    const Timing& mine = *challenger_verdict.timing;
    const Timing& theirs = *incumbent_verdict.timing;
    result.summary.append(" ").append(microseconds(mine.median_ns)).append("/").append(microseconds(theirs.median_ns));
    if (!faster_beyond_noise(mine.stats(), theirs.stats())) result.challenger_faster = false;
  }
  return result;
}

}  // namespace kernelgen
