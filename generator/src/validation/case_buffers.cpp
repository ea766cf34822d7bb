#include "kernelgen/validation/case_buffers.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

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

std::vector<Buffer> case_buffers(Device& device, const OpSpec& spec, const TestCase& test_case) {
  const auto tensors = spec.tensors();
  std::vector<Buffer> buffers;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const size_t bytes = static_cast<size_t>(tensors[t].bytes(test_case.dims));
    // Exactly its bytes, not rounded up: a timing binds these buffers whole, and must bind what the generated
    // op binds (each tensor's bytes), or a kernel's .length() would tell the two apart.
    buffers.emplace_back(device, bytes);
    if (t < test_case.inputs.size()) {
      buffers.back().upload(test_case.inputs[t].bytes.data(), bytes);
    } else {
      const std::vector<uint8_t> element = poison(tensors[t].dtype, 0);
      std::vector<uint8_t> poisoned(buffers.back().size());
      for (size_t i = 0; i < poisoned.size(); ++i) poisoned[i] = element[i % element.size()];
      buffers.back().upload(poisoned.data(), poisoned.size());
    }
  }
  return buffers;
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
