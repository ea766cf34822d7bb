#pragma once
#include <string>

#include "kernelgen/manifest.hpp"
#include "kernelgen/record.hpp"

namespace kernelgen {

// The device a checked-in kernel was chosen on: the manifest's search.chosen_on, else (in manifests written
// before it was recorded) the device that timed it, else the one that validated it; "" where none is named.
std::string chosen_on(const Manifest& manifest);

// Whether a regeneration's fastest correct kernel replaces the checked-in one, so that replaying the same
// completions checks in the same kernel byte for byte:
// - the same source is the same kernel: it is kept, manifest and all (a new timing is no reason to rewrite);
// - with `replace` (KERNELGEN_REPLACE=1) this search's pick is checked in, whatever was;
// - a kernel chosen on another device is kept: this device's timings say nothing of that one's;
// - when the checked-in kernel was not among this search's correct, timed candidates (its completion is gone,
//   or it fails now), the pick replaces it;
// - on the same device, the pick must be faster beyond the noise (faster_beyond_noise) than the checked-in
//   kernel as this search timed it, and then again when the two are timed side by side (paired_timing.hpp):
//   timings minutes apart on a shared machine differ by more than either's spread.
struct ReplacementDecision {
  enum class Action { keep, replace, confirm } action = Action::keep;  // confirm: by timing the two in pairs
  std::string reason;  // one line, for the build's output
};

// `incumbent_here`: the checked-in kernel as this search validated and timed it, or null.
ReplacementDecision decide_replacement(const Manifest& checked_in, const CandidateRecord& best,
                                       const CandidateRecord* incumbent_here, const std::string& device,
                                       bool replace);

}  // namespace kernelgen
