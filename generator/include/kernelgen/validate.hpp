#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/kernel.hpp"
#include "kernelgen/op_spec.hpp"
#include "kernelgen/reference_types.hpp"
#include "kernelgen/verdict.hpp"

namespace kernelgen {

class Device;
struct DeviceInfo;
struct SpirvInterface;

// A compiled candidate: what runs on the GPU.
struct KernelBinary {
  std::vector<uint32_t> spirv;
  Grid grid;
};

struct ValidationOptions {
  uint64_t base_seed = 0;
  int timing_runs = 0;  // GPU-timestamped dispatches after validation passes; 0 skips timing
};

// Why the SPIR-V's interface breaks the kernel contract for this op (bindings, storage classes, writability,
// entry point, workgroup size, shared memory and grid against the device's limits), or nullopt when it keeps it.
std::optional<std::string> interface_mismatch(const OpSpec& spec, const SpirvInterface& interface,
                                              const DeviceInfo& device, Grid grid);

// Runs the validation suite of DESIGN.md on `device`: interface check, then every case run twice with
// poisoned outputs and guard words, compared to the reference. Expected failures come back as a Verdict;
// only a broken spec (a reference that ignores its inputs) throws.
Verdict validate_kernel(Device& device, const OpSpec& spec, ReferenceFunction reference, const KernelBinary& kernel,
                        const ValidationOptions& options);

// The reference's outputs for one case.
std::vector<std::vector<float>> run_reference(const OpSpec& spec, ReferenceFunction reference,
                                              const std::vector<std::vector<float>>& inputs);

// Median GPU time of the kernel over `runs` timestamped dispatches, after warm-up.
Timing time_kernel(Device& device, const OpSpec& spec, const KernelBinary& kernel, int runs);

}  // namespace kernelgen
