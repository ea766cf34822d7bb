#pragma once
// What a generated op (cmake/templates/op.cpp.in) checks of a call before it records its kernel. Each failure
// is an exception whose message names the op (`op`, e.g. "bmm") and what to change.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kernelgen/grid.hpp"

namespace kernelgen {

struct BufferSlice;
struct DeviceInfo;

// The elements and bytes of a tensor of `shape`, declared as `declaration` (e.g. "a:f32[batch,m,k]"). Throws
// std::overflow_error naming the op, the tensor, its extents and their values when the count does not fit a
// std::size_t: a size that wrapped round would let a buffer far too small pass for the tensor's.
std::size_t tensor_elements(std::string_view op, std::string_view declaration,
                            std::span<const int64_t> shape);
std::size_t tensor_bytes(std::string_view op, std::string_view declaration, std::span<const int64_t> shape,
                         std::size_t element_bytes);

// One tensor of an op's call, in binding order.
struct OpTensor {
  const char* name;
  bool output;
  uint64_t bytes;  // at the call's dims: the range the op binds
};

// Throws std::invalid_argument unless there is one slice per tensor, each holds at least its tensor's bytes from
// its offset, and no output overlaps another tensor's bytes in the same Buffer (the kernel would read what it is
// overwriting, or two outputs race): `softmax(dims, x, x)` is refused; disjoint parts of one Buffer are allowed.
void check_op_slices(std::string_view op, std::span<const OpTensor> tensors, const std::vector<BufferSlice>& slices);

// Throws std::invalid_argument naming the op, the grid and the device's maxComputeWorkGroupCount when the
// device cannot dispatch `grid`.
void check_op_grid(std::string_view op, Grid grid, const DeviceInfo& device);

}  // namespace kernelgen
