#include "kernelgen/op_checks.hpp"

#include <stdexcept>
#include <string>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/sequence.hpp"

namespace kernelgen {

namespace {

std::string op_prefix(std::string_view op) {
  return "kernelgen::ops::" + std::string(op) + ": ";
}

std::string values_text(std::span<const int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

[[noreturn]] void too_large(std::string_view op, std::string_view declaration, std::span<const int64_t> shape,
                            const char* what) {
  throw std::overflow_error(op_prefix(op) + "tensor " + std::string(declaration) + " at " +
                            values_text(shape) + " has more " + what +
                            " than a std::size_t counts; call the op with smaller dims");
}

}  // namespace

std::size_t tensor_elements(std::string_view op, std::string_view declaration,
                            std::span<const int64_t> shape) {
  std::size_t elements = 1;
  for (int64_t extent : shape)
    if (extent < 0 || __builtin_mul_overflow(elements, static_cast<uint64_t>(extent), &elements))
      too_large(op, declaration, shape, "elements");
  return elements;
}

std::size_t tensor_bytes(std::string_view op, std::string_view declaration, std::span<const int64_t> shape,
                         std::size_t element_bytes) {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(tensor_elements(op, declaration, shape), element_bytes, &bytes))
    too_large(op, declaration, shape, "bytes");
  return bytes;
}

void check_op_slices(std::string_view op, std::span<const OpTensor> tensors, const std::vector<BufferSlice>& slices) {
  if (slices.size() != tensors.size()) {
    std::string names;
    for (const OpTensor& tensor : tensors) names += (names.empty() ? "" : ", ") + std::string(tensor.name);
    throw std::invalid_argument("kernelgen::ops::" + std::string(op) + " takes " +
                                std::to_string(tensors.size()) + " buffers (" + names + "), got " +
                                std::to_string(slices.size()));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string buffer = "buffer " + std::to_string(i) + " (" + tensors[i].name + ")";
    const Buffer* b = slices[i].buffer;
    if (!b) throw std::invalid_argument(op_prefix(op) + buffer + " is null");
    const uint64_t offset = slices[i].offset;
    if (offset > b->size() || b->size() - offset < tensors[i].bytes)
      throw std::invalid_argument(op_prefix(op) + buffer + " must hold at least " +
                                  std::to_string(tensors[i].bytes) + " bytes" +
                                  (offset ? " from offset " + std::to_string(offset) : std::string()) +
                                  ", it holds " + std::to_string(b->size()) +
                                  (b->size() == 0 ? " (a Buffer moved from)" : ""));
  }
  auto overlap = [&](size_t a, size_t b) {
    return slices[a].buffer->id() == slices[b].buffer->id() &&
           slices[a].offset < slices[b].offset + tensors[b].bytes &&
           slices[b].offset < slices[a].offset + tensors[a].bytes;
  };
  for (size_t out = 0; out < tensors.size(); ++out) {
    if (!tensors[out].output) continue;
    for (size_t other = 0; other < tensors.size(); ++other)
      if (other != out && overlap(out, other))
        throw std::invalid_argument(
            op_prefix(op) + "output " + tensors[out].name + " is the same Buffer as " +
            (tensors[other].output ? "output " : "input ") + tensors[other].name +
            (slices[out].offset || slices[other].offset ? ", at overlapping bytes" : "") +
            "; the kernel may overwrite what it still reads (or two outputs race), so give " +
            tensors[out].name + " a Buffer of its own");
  }
}

void check_op_grid(std::string_view op, Grid grid, const DeviceInfo& device) {
  if (const std::string problem = undispatchable_grid(grid, device); !problem.empty())
    throw std::invalid_argument(op_prefix(op) + problem);
}

}  // namespace kernelgen
