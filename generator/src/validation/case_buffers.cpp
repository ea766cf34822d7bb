#include "kernelgen/validation/case_buffers.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace kernelgen {

std::vector<uint8_t> poison(DType dtype, int run) {
  const DTypeInfo& info = dtype_info(dtype);
  std::vector<uint8_t> bytes(info.bytes);
  if (info.kind == DTypeKind::Float && info.bytes == 4) {
    const uint32_t word = run == 0 ? 0x7fe0deadu : std::bit_cast<uint32_t>(31337.0f);
    std::memcpy(bytes.data(), &word, 4);
  } else if (info.kind == DTypeKind::Float && info.bytes == 2) {
    const uint16_t half = run == 0 ? 0x7e01u : 0x77a7u;  // NaN; 31344
    std::memcpy(bytes.data(), &half, 2);
  } else {
    std::fill(bytes.begin(), bytes.end(), run == 0 ? 0xa5 : 0x5a);
  }
  return bytes;
}

std::vector<uint8_t> poisoned_bytes(DType dtype, int run, size_t bytes) {
  const std::vector<uint8_t> element = poison(dtype, run);
  std::vector<uint8_t> poisoned(bytes);
  for (size_t i = 0; i < poisoned.size(); ++i) poisoned[i] = element[i % element.size()];
  return poisoned;
}

namespace {

// A buffer of `bytes` bytes holding poison(dtype, 0).
Buffer poisoned_buffer(Device& device, DType dtype, size_t bytes) {
  Buffer buffer(device, bytes);
  const std::vector<uint8_t> poisoned = poisoned_bytes(dtype, 0, bytes);
  buffer.upload(poisoned.data(), poisoned.size());
  return buffer;
}

// A buffer of `bytes` zero bytes: scratch as every call finds it.
Buffer zeroed_buffer(Device& device, size_t bytes) {
  Buffer buffer(device, bytes);
  const std::vector<uint8_t> zeros(bytes, 0);
  buffer.upload(zeros.data(), zeros.size());
  return buffer;
}

}  // namespace

std::vector<Buffer> case_buffers(Device& device, const OpSpec& spec, const TestCase& test_case) {
  const auto tensors = spec.tensors();
  std::vector<Buffer> buffers;
  for (size_t t = 0; t < tensors.size(); ++t) {
    // Exactly its bytes, not rounded up: a timing binds these buffers whole, and must bind what the generated
    // op binds (each tensor's bytes), or a kernel's .length() would tell the two apart.
    const size_t bytes = static_cast<size_t>(tensors[t].bytes(test_case.dims));
    if (t < test_case.inputs.size()) {
      buffers.emplace_back(device, bytes);
      buffers.back().upload(test_case.inputs[t].bytes.data(), bytes);
    } else if (t >= spec.call_tensor_count()) {
      buffers.push_back(zeroed_buffer(device, bytes));
    } else {
      buffers.push_back(poisoned_buffer(device, tensors[t].dtype, bytes));
    }
  }
  return buffers;
}

TimedBuffers::TimedBuffers(Device& device, const OpSpec& spec, std::vector<TestCase> cases)
    : spec_(spec), cases_(std::move(cases)) {
  if (cases_.empty()) throw std::invalid_argument("kernelgen: timed runs need at least one case");
  for (const TestCase& test_case : cases_) sets_.push_back(case_buffers(device, spec_, test_case));
  for (const TensorSpec& output : spec_.outputs)
    poisoned_.push_back(
        poisoned_buffer(device, output.dtype, static_cast<size_t>(output.bytes(cases_.front().dims))));
}

std::vector<TimedBindings> TimedBuffers::bindings() const {
  std::vector<TimedBindings> bindings;
  for (const std::vector<Buffer>& set : sets_) {
    TimedBindings& binding = bindings.emplace_back();
    for (const Buffer& buffer : set) binding.bound.push_back(&buffer);
    for (size_t o = 0; o < poisoned_.size(); ++o)
      binding.resets.push_back({&poisoned_[o], &set[spec_.inputs.size() + o]});
  }
  return bindings;
}

std::vector<HostTensor> TimedBuffers::outputs(size_t set) const {
  return download_outputs(spec_, cases_.at(set).dims, sets_.at(set));
}

std::vector<HostTensor> download_outputs(const OpSpec& spec, const DimValues& dims, const std::vector<Buffer>& buffers) {
  std::vector<HostTensor> outputs;
  for (size_t o = 0; o < spec.outputs.size(); ++o) {
    outputs.emplace_back(spec.outputs[o].dtype, spec.outputs[o].shape_at(dims));
    buffers.at(spec.inputs.size() + o).download(outputs.back().bytes.data(), outputs.back().bytes.size());
  }
  return outputs;
}

}  // namespace kernelgen
