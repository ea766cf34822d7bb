#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/contract/op_spec.hpp"

namespace kernelgen {

// One set of input tensors the kernel and the reference both see, at one size of the op's dims.
struct TestCase {
  std::string name;  // "uniform", "normal", ... "ramp"
  uint64_t seed = 0;
  DimValues dims;
  std::vector<HostTensor> inputs;  // one per spec input, in declaration order
};

// The validation suite: 5 random cases (uniform[-1,1], normal(0,1), sparse 90% zeros, large-magnitude, tiny-
// magnitude), 5 edge cases (zeros, ones, alternating extremes, checkerboard +-1, index ramp) and 5 cases of
// awkward floats (mixed: magnitudes 1e-3..1e4 side by side; subnormal: a quarter subnormals and some -0.0;
// nonfinite: about one element in 64 NaN, +Inf, -Inf or -0.0; signed_zeros: +0.0 and -0.0 mixed in every row,
// a quarter negative numbers, so that a row's largest value is a zero of either sign; outliers: normal(0,1),
// about one element in 256 times 2^30, 2^12 in f16), each drawn for the tensor's dtype (integers: small, wide,
// the dtype's extremes; f16: +-65504 and f16 subnormals) and, for an INDEX input, within its range. Each case's
// seed derives from base_seed and the dims, so the same base seed gives the same inputs.
std::vector<TestCase> make_cases(const OpSpec& spec, uint64_t base_seed, const DimValues& dims = {});

// The suite's case names, in order.
std::span<const char* const> case_names();

// One case of the suite by name, e.g. to compare the reference's output for two seeds.
TestCase make_case(const OpSpec& spec, const std::string& name, uint64_t base_seed, const DimValues& dims = {});

// Extra runs of one case where a race would show, unless KERNELGEN_STRESS_RUNS says otherwise.
constexpr int kDefaultStressRuns = 8;

// $KERNELGEN_STRESS_RUNS (a count >= 0) when set, else kDefaultStressRuns; throws std::invalid_argument naming
// the setting for anything else.
int stress_runs_from_environment();

// A base seed: $KERNELGEN_SEED when set (to replay a run), else fresh from std::random_device.
uint64_t base_seed_from_environment();

}  // namespace kernelgen
