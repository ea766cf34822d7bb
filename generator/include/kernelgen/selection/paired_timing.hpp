#pragma once
#include <cstdint>
#include <string>

#include "kernelgen/validation/isolated_validation.hpp"

namespace kernelgen {

// A challenger timed side by side with the checked-in kernel: alternately, `pairs` times each, every timing in a
// validation worker of its own on the timing device (the first of `isolation.devices`). What else the machine
// does meanwhile (a compile beside lavapipe on a shared CPU) then weighs on both alike, where the search's
// timings, minutes apart, can differ by more than either's spread.
struct PairedTiming {
  bool challenger_faster = false;  // faster beyond the noise (faster_beyond_noise) in every pair
  std::string summary;             // the pairs' medians, or why a timing failed, in one line
};

PairedTiming time_in_pairs(const IsolationSettings& isolation, const OpSpec& spec, const std::string& challenger,
                           const std::string& incumbent, uint64_t base_seed, int timing_runs, int pairs = 3);

}  // namespace kernelgen
