// Whether a regeneration's pick replaces the checked-in kernel: the rules that make a replay check in the
// committed kernels byte for byte.
#include "kernelgen/selection/incumbent.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernelgen/store/hash.hpp"

namespace kernelgen {
namespace {

using Action = ReplacementDecision::Action;

constexpr const char* kLavapipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";

Manifest checked_in(const std::string& source, const std::string& device) {
  Manifest manifest;
  manifest.source_hash = content_hash(source);
  manifest.timing = {{"device", device}, {"median_ns", 1000.0}};
  manifest.validation = {{"device", device}};
  return manifest;
}

// A correct candidate timed at `median_ns` with the quartiles `spread_ns` apart.
CandidateRecord timed(const std::string& source, double median_ns, double spread_ns, const std::string& device) {
  CandidateRecord record;
  record.glsl = source;
  record.origin = "op/r2/s1";
  record.verdict.status = Status::PASSED;
  Timing timing;
  timing.device = device;
  timing.median_ns = timing.min_ns = median_ns;
  timing.p25_ns = median_ns - spread_ns / 2;
  timing.p75_ns = median_ns + spread_ns / 2;
  timing.runs = 31;
  record.verdict.timing = timing;
  return record;
}

TEST(DecideReplacement, TheSameSourceKeepsTheCheckedInFilesWhateverItsTimeHere) {
  const CandidateRecord best = timed("kernel A", 10.0, 1.0, kLavapipe);
  const ReplacementDecision decision = decide_replacement(checked_in("kernel A", kLavapipe), best, &best, {}, kLavapipe, true);
  EXPECT_EQ(decision.action, Action::keep);
  EXPECT_NE(decision.reason.find("unchanged"), std::string::npos) << decision.reason;
}

TEST(DecideReplacement, AKernelChosenOnAnotherDeviceIsKeptAndThisDevicesPickIsNamed) {
  const CandidateRecord best = timed("kernel B", 10.0, 1.0, kLavapipe);
  const CandidateRecord incumbent = timed("kernel A", 1000.0, 1.0, kLavapipe);
  const ReplacementDecision decision =
      decide_replacement(checked_in("kernel A", kH100), best, &incumbent, {}, kLavapipe, false);
  EXPECT_EQ(decision.action, Action::keep);
  EXPECT_NE(decision.reason.find(kH100), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("would pick op/r2/s1"), std::string::npos) << decision.reason;
  EXPECT_NE(decision.reason.find("KERNELGEN_REPLACE=1"), std::string::npos) << decision.reason;
}

// Its twin is the test above: the same kernel, passing here, is kept.
TEST(DecideReplacement, AKernelThatFailsThisSearchsValidationIsReplacedWhoeverChoseIt) {
  const CandidateRecord best = timed("kernel B", 1000.0, 1.0, kLavapipe);
  CandidateRecord incumbent = timed("kernel A", 10.0, 1.0, kLavapipe);
  incumbent.verdict.status = Status::INCORRECT_NUMERICAL;
  incumbent.verdict.reason = "case normal at batch=3: 4 mismatches";
  incumbent.verdict.timing.reset();
  Manifest chosen_elsewhere = checked_in("kernel A", kH100);
  const ReplacementDecision decision =
      decide_replacement(chosen_elsewhere, best, &incumbent, {}, kLavapipe, false);
  EXPECT_EQ(decision.action, Action::replace);
  EXPECT_NE(decision.reason.find("fails this search's validation (INCORRECT_NUMERICAL: case normal"), std::string::npos)
      << decision.reason;

  // Nor on its own device, chosen among these very candidates.
  Manifest chosen_here = checked_in("kernel A", kLavapipe);
  const std::vector<std::string> both = merged_hashes({content_hash("kernel A")}, {content_hash("kernel B")});
  chosen_here.search = {{"chosen_among", both}};
  EXPECT_EQ(decide_replacement(chosen_here, best, &incumbent, both, kLavapipe, false).action, Action::replace);
}

TEST(DecideReplacement, AKernelChosenOnAnotherDeviceThatThisSearchDidNotValidateIsNotKept) {
  const CandidateRecord best = timed("kernel B", 10.0, 1.0, kLavapipe);
  const ReplacementDecision decision =
      decide_replacement(checked_in("kernel A", kH100), best, nullptr, {}, kLavapipe, false);
  EXPECT_EQ(decision.action, Action::replace);
  EXPECT_NE(decision.reason.find("not among this search's candidates"), std::string::npos) << decision.reason;
}

TEST(DecideReplacement, ReplaceChecksInThisDevicesPickOverAnotherDevicesKernel) {
  const CandidateRecord best = timed("kernel B", 10.0, 1.0, kLavapipe);
  EXPECT_EQ(decide_replacement(checked_in("kernel A", kH100), best, nullptr, {}, kLavapipe, true).action, Action::replace);
}

TEST(DecideReplacement, OnTheSameDeviceATieKeepsTheCheckedInKernel) {
  const CandidateRecord best = timed("kernel B", 980.0, 10.0, kLavapipe);  // 2% faster: within the noise
  const CandidateRecord incumbent = timed("kernel A", 1000.0, 10.0, kLavapipe);
  const ReplacementDecision decision =
      decide_replacement(checked_in("kernel A", kLavapipe), best, &incumbent, {}, kLavapipe, false);
  EXPECT_EQ(decision.action, Action::keep);
  EXPECT_NE(decision.reason.find("not faster beyond the noise"), std::string::npos) << decision.reason;
}

TEST(DecideReplacement, OnTheSameDeviceAKernelFasterBeyondTheNoiseIsTimedAgainBesideIt) {
  const CandidateRecord best = timed("kernel B", 500.0, 10.0, kLavapipe);
  const CandidateRecord incumbent = timed("kernel A", 1000.0, 10.0, kLavapipe);
  EXPECT_EQ(decide_replacement(checked_in("kernel A", kLavapipe), best, &incumbent, {}, kLavapipe, false).action,
            Action::confirm);
}

TEST(DecideReplacement, ACheckedInKernelThatThisSearchDidNotPassIsReplaced) {
  const CandidateRecord best = timed("kernel B", 2000.0, 10.0, kLavapipe);
  const ReplacementDecision decision =
      decide_replacement(checked_in("kernel A", kLavapipe), best, nullptr, {}, kLavapipe, false);
  EXPECT_EQ(decision.action, Action::replace);
  EXPECT_NE(decision.reason.find("not among"), std::string::npos) << decision.reason;
}

TEST(DecideReplacement, AReplayOfTheCandidatesTheKernelWasChosenAmongKeepsItHoweverItTimesThem) {
  // Another machine with the same device name (lavapipe on another CPU) times kernel B well ahead of kernel A.
  const CandidateRecord best = timed("kernel B", 500.0, 10.0, kLavapipe);
  const CandidateRecord incumbent = timed("kernel A", 1000.0, 10.0, kLavapipe);
  Manifest manifest = checked_in("kernel A", kLavapipe);
  const std::string a = content_hash("kernel A"), b = content_hash("kernel B"), c = content_hash("kernel C");
  manifest.search = {{"chosen_among", {a, b, c}}};
  const auto sorted = [](std::vector<std::string> hashes) {
    std::sort(hashes.begin(), hashes.end());
    return hashes;
  };

  const ReplacementDecision same = decide_replacement(manifest, best, &incumbent, sorted({a, b}), kLavapipe, false);
  EXPECT_EQ(same.action, Action::keep);
  EXPECT_NE(same.reason.find("chosen among these 2 correct candidates"), std::string::npos) << same.reason;
  EXPECT_NE(same.reason.find("KERNELGEN_REPLACE=1"), std::string::npos) << same.reason;

  // A candidate it was not chosen among is new: the timings decide again, and KERNELGEN_REPLACE=1 still replaces.
  const std::string d = content_hash("kernel D");
  EXPECT_EQ(decide_replacement(manifest, best, &incumbent, sorted({a, b, d}), kLavapipe, false).action, Action::confirm);
  EXPECT_EQ(decide_replacement(manifest, best, &incumbent, sorted({a, b}), kLavapipe, true).action, Action::replace);
}

TEST(DecideReplacement, AnUntimedCheckedInKernelIsKeptAmongTheSameCandidatesAndReplacedOtherwise) {
  const CandidateRecord best = timed("kernel B", 500.0, 10.0, kLavapipe);
  CandidateRecord incumbent = timed("kernel A", 1000.0, 10.0, kLavapipe);
  incumbent.verdict.timing.reset();
  incumbent.verdict.timing_error = "no timestamps";
  Manifest manifest = checked_in("kernel A", kLavapipe);
  std::vector<std::string> both{content_hash("kernel A"), content_hash("kernel B")};
  std::sort(both.begin(), both.end());
  manifest.search = {{"chosen_among", both}};
  const ReplacementDecision kept = decide_replacement(manifest, best, &incumbent, both, kLavapipe, false);
  EXPECT_EQ(kept.action, Action::keep);
  EXPECT_NE(kept.reason.find("untimed here"), std::string::npos) << kept.reason;

  manifest.search = nullptr;
  const ReplacementDecision replaced = decide_replacement(manifest, best, &incumbent, both, kLavapipe, false);
  EXPECT_EQ(replaced.action, Action::replace);
  EXPECT_NE(replaced.reason.find("could not be timed"), std::string::npos) << replaced.reason;
}

TEST(MergedHashes, IsTheSortedUnionWithoutRepeats) {
  EXPECT_EQ(merged_hashes({"a", "c"}, {"b", "c", "d"}), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(merged_hashes({}, {"b"}), (std::vector<std::string>{"b"}));
  EXPECT_EQ(merged_hashes({"a"}, {}), (std::vector<std::string>{"a"}));
}

TEST(ChosenAmong, ReadsTheRecordedHashesSortedWithoutRepeatsAndNothingFromOlderManifests) {
  Manifest manifest = checked_in("kernel A", kLavapipe);
  EXPECT_TRUE(chosen_among(manifest).empty());
  manifest.search = {{"chosen_on", kLavapipe}};
  EXPECT_TRUE(chosen_among(manifest).empty());
  manifest.search["chosen_among"] = {"b", "a"};
  EXPECT_EQ(chosen_among(manifest), (std::vector<std::string>{"a", "b"}));
  // A list edited by hand may repeat a hash: it is read once, so that merged_hashes gets lists without repeats.
  manifest.search["chosen_among"] = {"b", "a", "b"};
  EXPECT_EQ(chosen_among(manifest), (std::vector<std::string>{"a", "b"}));
}

TEST(ChosenOn, PrefersTheRecordedChooserThenTheTimingThenTheValidation) {
  Manifest manifest = checked_in("kernel A", kH100);
  EXPECT_EQ(chosen_on(manifest), kH100);
  manifest.search = {{"chosen_on", kLavapipe}};
  EXPECT_EQ(chosen_on(manifest), kLavapipe);
  manifest.search = nullptr;
  manifest.timing = {{"error", "no timestamps"}};
  EXPECT_EQ(chosen_on(manifest), kH100);
}

}  // namespace
}  // namespace kernelgen
