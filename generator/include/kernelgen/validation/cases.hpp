#pragma once
#include <cstdint>
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
// magnitude) and 5 edge cases (zeros, ones, alternating extremes, checkerboard +-1, index ramp), each drawn for
// the tensor's dtype (integers: small, wide, the dtype's extremes; f16: +-65504 and subnormals) and, for an
// INDEX input, within its range. Each case's seed derives from base_seed and the dims, so the same base seed
// gives the same inputs.
std::vector<TestCase> make_cases(const OpSpec& spec, uint64_t base_seed, const DimValues& dims = {});

// One case of the suite by name, e.g. to compare the reference's output for two seeds.
TestCase make_case(const OpSpec& spec, const std::string& name, uint64_t base_seed, const DimValues& dims = {});

// A base seed: $KERNELGEN_SEED when set (to replay a run), else fresh from std::random_device.
uint64_t base_seed_from_environment();

}  // namespace kernelgen
