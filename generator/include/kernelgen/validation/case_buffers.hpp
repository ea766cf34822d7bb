#pragma once
#include <cstdint>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/validation/cases.hpp"

namespace kernelgen {

// The buffers of one call of an op outside the validator's guarded runs (a timing, a wrapper call in a test
// or a benchmark), one per tensor in binding order, each exactly its tensor's bytes at the case's dims (what
// the generated op binds): the case's inputs uploaded, and each output filled with poison(dtype, 0), so that
// an element no call writes shows.
std::vector<Buffer> case_buffers(Device& device, const OpSpec& spec, const TestCase& test_case);

// The outputs the buffers hold, read back at these dims.
std::vector<HostTensor> download_outputs(const OpSpec& spec, const DimValues& dims, const std::vector<Buffer>& buffers);

// The validator's poison patterns, one per run: a NaN with a payload then a finite value for floats, two
// different byte patterns for integers. An element holding the first after run 0 and the second after run 1
// was never written.
std::vector<uint8_t> poison(DType dtype, int run);

}  // namespace kernelgen
