#include "kernelgen/selection/incumbent.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "kernelgen/store/hash.hpp"
#include "kernelgen/timing.hpp"

namespace kernelgen {

namespace {

std::string device_of(const nlohmann::json& section) {
  if (!section.is_object()) return "";
  const auto device = section.find("device");
  return device != section.end() && device->is_string() ? device->get<std::string>() : "";
}

std::string time_of(const CandidateRecord& record) {
  if (!record.verdict.timing) return "untimed";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", record.verdict.timing->median_ns / 1e3);
  return text;
}

using Action = ReplacementDecision::Action;

}  // namespace

std::string chosen_on(const Manifest& manifest) {
  if (const auto chosen = manifest.search.find("chosen_on");
      manifest.search.is_object() && chosen != manifest.search.end() && chosen->is_string())
    return chosen->get<std::string>();
  if (std::string device = device_of(manifest.timing); !device.empty()) return device;
  return device_of(manifest.validation);
}

std::vector<std::string> chosen_among(const Manifest& manifest) {
  std::vector<std::string> hashes;
  if (!manifest.search.is_object()) return hashes;
  const auto among = manifest.search.find("chosen_among");
  if (among == manifest.search.end() || !among->is_array()) return hashes;
  for (const auto& hash : *among)
    if (hash.is_string()) hashes.push_back(hash.get<std::string>());
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  return hashes;
}

std::vector<std::string> merged_hashes(const std::vector<std::string>& earlier, const std::vector<std::string>& now) {
  std::vector<std::string> merged;
  std::set_union(earlier.begin(), earlier.end(), now.begin(), now.end(), std::back_inserter(merged));
  return merged;
}

ReplacementDecision decide_replacement(const Manifest& checked_in, const CandidateRecord& best,
                                       const CandidateRecord* incumbent_here,
                                       const std::vector<std::string>& correct_here, const std::string& device,
                                       bool replace) {
  const std::string pick = best.origin + " (" + time_of(best) + ")";
  if (content_hash(best.glsl) == checked_in.source_hash)
    return {Action::keep, "this search picked the checked-in kernel again, " + pick + "; the kernel is unchanged"};
  // Before any rule that keeps a kernel: whoever chose it, a kernel that fails here is not kept.
  if (incumbent_here && !incumbent_here->correct())
    return {Action::replace, "the checked-in kernel fails this search's validation (" +
                                 std::string(status_name(incumbent_here->verdict.status)) + ": " +
                                 incumbent_here->verdict.reason.substr(0, 200) + "); checking in " + pick};
  if (replace) return {Action::replace, "KERNELGEN_REPLACE=1: checking in this device's pick, " + pick};
  if (!incumbent_here)
    return {Action::replace, "the checked-in kernel was not among this search's candidates; checking in " + pick};
  const std::string chooser = chosen_on(checked_in);
  if (chooser != device)
    return {Action::keep, "kept the checked-in kernel, chosen on " + (chooser.empty() ? "an unnamed device" : chooser) +
                       " and passed here; this device (" + device + ") would pick " + pick +
                       ". KERNELGEN_REPLACE=1 checks that one in"};
  if (const std::vector<std::string> among = chosen_among(checked_in);
      !among.empty() && std::includes(among.begin(), among.end(), correct_here.begin(), correct_here.end()))
    return {Action::keep, "kept the checked-in kernel (" + time_of(*incumbent_here) + " here): it was chosen among these " +
                       std::to_string(correct_here.size()) + " correct candidates, and timing them again is no new "
                       "candidate; this search would pick " + pick + ". KERNELGEN_REPLACE=1 checks that one in"};
  if (!incumbent_here->verdict.timing)
    return {Action::replace, "the checked-in kernel could not be timed here; checking in " + pick};
  if (!best.verdict.timing ||
      !faster_beyond_noise(best.verdict.timing->stats(), incumbent_here->verdict.timing->stats()))
    return {Action::keep, "kept the checked-in kernel (" + time_of(*incumbent_here) + " here): " + pick +
                       " is not faster beyond the noise"};
  return {Action::confirm, pick + " is faster beyond the noise than the checked-in kernel (" + time_of(*incumbent_here) +
                                 " here)"};
}

}  // namespace kernelgen
