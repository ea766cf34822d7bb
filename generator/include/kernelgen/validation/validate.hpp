#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/validation/cases.hpp"
#include "kernelgen/dim_expression.hpp"
#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/reference_types.hpp"
#include "kernelgen/validation/sizes.hpp"
#include "kernelgen/validation/timed_output.hpp"
#include "kernelgen/validation/verdict.hpp"

namespace kernelgen {

struct SpirvInterface;

// A compiled candidate: what runs on the GPU, and the grid its dispatch line declares over the op's dims.
struct KernelBinary {
  std::vector<uint32_t> spirv;
  GridExpression grid;
};

struct ValidationOptions {
  uint64_t base_seed = 0;
  // GPU-timestamped dispatches at the op's bench dims after validation passes, whose output is then checked
  // (validation/timed_output.hpp); 0: none
  int timing_runs = 0;
  // Extra runs of the first case at the largest size, each compared bit for bit with the first run, where a
  // race would show (KERNELGEN_STRESS_RUNS).
  int stress_runs = kDefaultStressRuns;
  // Test hook (the worker's KERNELGEN_TEST_WORKER_FAULT): a VkResult the first dispatch fails with, as a lost
  // device or exhausted memory would make it; or kTimingFault, which makes timing fail. 0: none.
  int test_fault = 0;
  // Without timing too, run the kernel at the timed size on each of timed_size_case_names() and check its
  // outputs, as a timing does (`kernelgen validate` without --no-timed-size).
  bool check_timed_size = false;
  // The declared sizes alone (declared_sizes) and the first two cases of each (uniform, normal): the cheaper
  // pass at each subgroup size after a device's own (isolated_validation.hpp); lavapipe's second width runs
  // at half its speed.
  bool declared_sizes_two_cases = false;
  // 0: the cases run at the subgroup size the device picks. Else the kernel's pipeline is made to run them at
  // this size (Kernel's required_subgroup_size), one the device allows for it: the pass at a GPU's smallest
  // and largest sizes (validation/subgroup_sizes.hpp), which is never timed nor checked at the timed size.
  // The verdict's subgroup_sizes then names it.
  uint32_t required_subgroup_size = 0;
};

constexpr int kTimingFault = 1;

// Why the SPIR-V's interface breaks the kernel contract for this op (bindings, storage classes, writability,
// the Dims push-constant block, entry point, capabilities the device lacks, workgroup size and shared memory
// against the device's limits), or nullopt when it keeps it.
std::optional<std::string> interface_mismatch(const OpSpec& spec, const SpirvInterface& interface,
                                              const DeviceInfo& device);

// Why the grid cannot be launched at one of these sizes (it does not evaluate, is 0, or exceeds the device's
// workgroup counts), or nullopt.
std::optional<std::string> grid_problem(const OpSpec& spec, const GridExpression& grid,
                                        std::span<const DimValues> sizes, const DeviceInfo& device);

// Why this device cannot run the op at all (a dtype it cannot store), or nullopt.
std::optional<std::string> unsupported_on(const OpSpec& spec, const DeviceInfo& device);
// The same, and a SPIR-V capability the kernel declares that the device lacks (Float16 arithmetic, Int8...).
std::optional<std::string> unsupported_on(const OpSpec& spec, const DeviceInfo& device,
                                          std::span<const uint32_t> spirv);

// The device validation wants: GPU-assisted validation where the Khronos layer is installed, so that every
// out-of-bounds access of a kernel is caught and none happens (robust access then off, as in a wrapper);
// without the layer, robust access, so that a far access cannot corrupt memory, and the guards alone.
DeviceOptions validation_device_options();

// Runs the validation suite of DESIGN.md on `device`: interface check, then every case at every size run twice
// with poisoned outputs and guard bytes, compared to the reference. Expected failures come back as a Verdict;
// only a broken spec (a reference that ignores its inputs) throws.
Verdict validate_kernel(Device& device, const OpSpec& spec, ReferenceFunction reference, const KernelBinary& kernel,
                        const ValidationOptions& options);

// The reference's outputs for one case.
std::vector<HostTensor> run_reference(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case);

// Per output element, the magnitude of the terms its value is made of, which bounds a reduction's rounding
// error (see compare_outputs): the op's KERNELGEN_TERMS on the case's inputs where its reference module defines
// one, else the reference run on the absolute values of the case's float inputs. Empty when no output is a
// float.
std::vector<HostTensor> reference_magnitudes(const OpSpec& spec, ReferenceFunction reference,
                                             const TestCase& test_case);

// The dims as the kernel's push constants receive them.
std::vector<uint32_t> push_constants(const DimValues& dims);

// A timing, and what the kernel computed while timed: per input set the timed runs rotated through (the first
// kTimedInputSets of timed_size_case_names(), at the timed dims), its inputs and the outputs its last run left.
struct TimedRun {
  Timing timing;
  std::vector<TimedSizeOutput> outputs;
};

// Median GPU time of the kernel at the op's bench dims over `runs` timestamped dispatches, after warm-up, on
// inputs drawn from `seed`, each dispatch from freshly poisoned outputs (TimedBuffers). On a device with
// GPU-assisted validation or robust buffer access (a validation device) the kernel is timed on the same
// physical device opened plainly, as an application opens it: both slow the kernel down.
TimedRun time_kernel(Device& device, const OpSpec& spec, const KernelBinary& kernel, int runs, uint64_t seed);

}  // namespace kernelgen
