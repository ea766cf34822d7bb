#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/op_spec.hpp"

namespace kernelgen {

// One set of input tensors the kernel and the reference both see.
struct TestCase {
  std::string name;  // "uniform", "normal", ... "ramp"
  uint64_t seed = 0;
  std::vector<std::vector<float>> inputs;  // one per spec input, in declaration order
};

// The validation suite: 5 random cases (uniform[-1,1], normal(0,1), sparse 90% zeros, large-magnitude, tiny-
// magnitude) and 5 edge cases (zeros, ones, alternating extremes, checkerboard +-1, index ramp). Each case's
// seed derives from base_seed, so the same base seed gives the same inputs.
std::vector<TestCase> make_cases(const OpSpec& spec, uint64_t base_seed);

// One case of the suite by name, e.g. to compare the reference's output for two seeds.
TestCase make_case(const OpSpec& spec, const std::string& name, uint64_t base_seed);

// A base seed: $KERNELGEN_SEED when set (to replay a run), else fresh from std::random_device.
uint64_t base_seed_from_environment();

}  // namespace kernelgen
