#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernelgen/buffer.hpp"

namespace kernelgen {

class Device;

// A generated op's scratch (SCRATCH in kernelgen_add_op): memory its kernel's workgroups share within one
// call. The contract (docs/kernel-contract.md) says a call finds it all zero and leaves it so; the buffers
// are zeroed once, when made, and each call's kernel restores them, so no call pays for a fill and the
// barrier after it.
//
// A call at larger dims gets new buffers; the smaller ones live as long as this object, since a recording the
// caller still holds (a Sequence of a whole model step) may bind them.
class ScratchBuffers {
 public:
  explicit ScratchBuffers(Device& device) : device_(&device) {}

  // One buffer of at least bytes[i] bytes per scratch tensor, to bind after the caller's buffers: zero, as
  // the previous call left it or as made (the zeros are uploaded in front of the next submission on the
  // Device).
  std::vector<const Buffer*> for_call(std::span<const uint64_t> bytes);

 private:
  Device* device_;
  std::vector<std::vector<Buffer>> sets_;  // one buffer per scratch tensor in each; the largest last
};

}  // namespace kernelgen
