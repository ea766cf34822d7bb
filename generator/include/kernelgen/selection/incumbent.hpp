#pragma once
#include <string>
#include <vector>

#include "kernelgen/store/manifest.hpp"
#include "kernelgen/store/record.hpp"

namespace kernelgen {

// The device a checked-in kernel was chosen on: the manifest's search.chosen_on, else (in manifests written
// before it was recorded) the device that timed it, else the one that validated it; "" where none is named.
std::string chosen_on(const Manifest& manifest);

// The content hashes of the correct candidates a checked-in kernel was chosen among (search.chosen_among), sorted,
// without repeats; empty in manifests written before it was recorded.
std::vector<std::string> chosen_among(const Manifest& manifest);

// Two sorted lists of content hashes without repeats (chosen_among's, SearchOutcome::correct_sources) as one,
// sorted, without repeats: what a kernel kept or optimised over was chosen among, the earlier candidates and this
// search's.
std::vector<std::string> merged_hashes(const std::vector<std::string>& earlier, const std::vector<std::string>& now);

// Whether a regeneration's fastest correct kernel replaces the checked-in one, so that replaying the same
// completions checks in the same kernel byte for byte:
// - the same source is the same kernel: it is kept, its files as they were (a new timing is no reason to rewrite
//   them; the build step adds only new correct candidates to its manifest's chosen_among);
// - a checked-in kernel that fails this search's validation is replaced by the pick, whoever chose it;
// - with `replace` (KERNELGEN_REPLACE=1) this search's pick is checked in, whatever was;
// - when this search did not validate the checked-in kernel (its completion is gone, or the search stopped before
//   it), the pick replaces it;
// - a kernel chosen on another device, and passed here, is kept: this device's timings say nothing of that one's
//   (the build step validates such a kernel that the search did not reach before it decides);
// - when every correct candidate of this search was among those the checked-in kernel was chosen from (a replay of
//   the same cassettes), the choice stands, timed or not: timing the same kernels again on another machine of the
//   same device name (lavapipe's on another CPU) may order two close ones the other way, and that is no new
//   candidate;
// - a checked-in kernel that could not be timed here is replaced by the pick;
// - on the same device, the pick must be faster beyond the noise (faster_beyond_noise) than the checked-in
//   kernel as this search timed it, and then again when the two are timed side by side (paired_timing.hpp):
//   timings minutes apart on a shared machine differ by more than either's spread.
// Two ways timings still reach a replay of the same cassettes: a search whose optimisation rounds are skipped (its
// first correct kernel could not be timed) or stop early (OPT_ROUNDS 2 or more), or that asks fewer parents (BEAM
// 2 or more, an untimed one), may stop before the checked-in kernel, which is then replaced; and a candidate that
// failed when the kernel was chosen (other seeds, other sizes drawn) and passes now counts as new.
struct ReplacementDecision {
  enum class Action { keep, replace, confirm } action = Action::keep;  // confirm: by timing the two in pairs
  std::string reason;  // one line, for the build's output
};

// `incumbent_here`: the checked-in kernel as this search validated and timed it (SearchOutcome::incumbent: failed,
// where any of its validations failed), or null. `correct_here`: the
// content hashes of this search's correct candidates, sorted, without repeats (SearchOutcome::correct_sources).
ReplacementDecision decide_replacement(const Manifest& checked_in, const CandidateRecord& best,
                                       const CandidateRecord* incumbent_here,
                                       const std::vector<std::string>& correct_here, const std::string& device,
                                       bool replace);

}  // namespace kernelgen
