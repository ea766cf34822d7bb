#pragma once
#include <cstdint>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/timing.hpp"
#include "kernelgen/validation/cases.hpp"

namespace kernelgen {

// The buffers of one call of an op outside the validator's guarded runs (a timing, a wrapper call in a test
// or a benchmark), one per tensor in binding order, each exactly its tensor's bytes at the case's dims (what
// the generated op binds): the case's inputs uploaded, each output filled with poison(dtype, 0), so that
// an element no call writes shows, and the scratch zeroed, as every call finds it.
std::vector<Buffer> case_buffers(Device& device, const OpSpec& spec, const TestCase& test_case);

// The outputs the buffers hold, read back at these dims.
std::vector<HostTensor> download_outputs(const OpSpec& spec, const DimValues& dims, const std::vector<Buffer>& buffers);

// The buffers of timed runs (DispatchTimer, kernelgen/timing.hpp) of one op: a set per case, as case_buffers
// makes them, and one buffer per output holding poison(dtype, 0), which each run's outputs are reset to
// before the run. The scratch is not reset: each run finds it as the run before left it, all zero for a
// kernel that keeps the contract, as a wrapper's calls do. The search's timing, `kernelgen validate --time`
// and the generated benchmark all time through these.
class TimedBuffers {
 public:
  // `cases`: at one size, each with inputs of its own.
  TimedBuffers(Device& device, const OpSpec& spec, std::vector<TestCase> cases);

  // One per case, for DispatchTimer.
  std::vector<TimedBindings> bindings() const;
  const std::vector<TestCase>& cases() const { return cases_; }
  std::vector<Buffer>& buffers(size_t set) { return sets_.at(set); }
  // What set `set`'s outputs hold.
  std::vector<HostTensor> outputs(size_t set) const;

 private:
  OpSpec spec_;
  std::vector<TestCase> cases_;
  std::vector<std::vector<Buffer>> sets_;
  std::vector<Buffer> poisoned_;  // per output
};

// The validator's poison patterns, one per run: a NaN with a payload then a finite value for floats, two
// different byte patterns for integers. An element holding the first after run 0 and the second after run 1
// was never written.
std::vector<uint8_t> poison(DType dtype, int run);

// `bytes` bytes of elements holding poison(dtype, run): a whole output as a run finds it.
std::vector<uint8_t> poisoned_bytes(DType dtype, int run, size_t bytes);

}  // namespace kernelgen
