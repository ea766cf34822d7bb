#pragma once
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/llm/types.hpp"
#include "kernelgen/optimise/device_peaks.hpp"
#include "kernelgen/validation/verdict.hpp"

namespace kernelgen {

struct DeviceInfo;

// An idea an earlier optimisation round tried, and what came of it ("1.8x faster than its parent", "rejected:
// INCORRECT_NUMERICAL ...", "correct, not faster beyond the noise").
struct TriedIdea {
  std::string idea;
  std::string outcome;
};

// The version of the optimisation templates (brainstorm_system.md, brainstorm.md, implement.md), kept in every
// optimisation record. Not part of the spec hash: a changed optimisation prompt does not make a kernel stale.
std::string optimise_prompt_version();

// The brainstorm call: the kernel, its time, GB/s and GFLOP/s at the timed size and its fraction of the
// device's peak, the roofline, the device's capabilities and the ideas already tried; asks for `count` ideas as
// a ```json list.
llm::Prompt build_brainstorm_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                                    const std::optional<DevicePeaks>& peaks, const std::string& kernel,
                                    const Timing& timing, const std::vector<TriedIdea>& tried, int count);

// The implement call: the generation prompt (contract, reference, device) with the parent kernel, its time and
// one idea to apply; the answer is a kernel like any other.
llm::Prompt build_implement_prompt(const OpSpec& spec, const std::string& reference_text, const DeviceInfo& device,
                                   const std::string& kernel, const Timing& timing, const std::string& idea);

// "median 63.9 us over 31 runs at m=256 (spread 2.1 us), 12.3 GB/s, 525 GFLOP/s, 4.2% of the device's peak"
std::string performance_text(const Timing& timing);

}  // namespace kernelgen
