#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/validation/validate.hpp"

namespace kernelgen {

// How a candidate is validated out of process: `<tool> validate-worker` in a child process of its own process
// group, with its own Vulkan device (robust buffer access on), killed when the wall-clock limit passes.
struct IsolationSettings {
  std::filesystem::path tool;  // the kernelgen tool; empty: this process's own executable (/proc/self/exe)
  double timeout_s = 60;       // per device
  // The devices to validate on, one worker each, in order (see validation_devices()); the first also times a
  // passing kernel. Empty: the worker's own choice of one device.
  std::vector<DeviceInfo> devices;
  // The op's reference module (kernelgen_add_op's <build>/kernelgen/<op>/reference.so), which the worker loads:
  // `kernelgen validate-worker --reference <module>`.
  std::filesystem::path reference_module;
};

// The limit from a KERNELGEN_VALIDATION_TIMEOUT_S value (seconds, > 0), or, when there is none, the default
// times `concurrent_searches`: the searches that share this machine at once (kernelgen_regenerate's
// KERNELGEN_PARALLEL_SEARCHES), each of which slows the others' validations on a CPU device. Throws
// std::invalid_argument naming the setting for anything else.
double validation_timeout(const std::optional<std::string>& setting, int concurrent_searches = 1);

// evaluate_source() in a child process per device, then more children there at other subgroup sizes, so that
// a kernel meets several (Verdict::subgroup_sizes lists those it ran at): on a GPU whose
// VK_EXT_subgroup_size_control range holds sizes besides its default, one made to run at its smallest and one
// at its largest (extra_subgroup_sizes, validation/subgroup_sizes.hpp); on a lavapipe wider than 4, one that
// runs it 4 wide (LP_NATIVE_VECTOR_WIDTH=128 GALLIUM_OVERRIDE_CPU_CAPS=sse4.1). Those run the declared sizes
// with two cases, no stress runs, neither timed nor checked at the timed size. It stops at the first device
// that rejects the kernel: its verdict, whose device is that one (and whose reason names it when there are
// several, and the subgroup size and how it was set when that pass was not the first). A kernel that passes
// everywhere gets the first device's verdict, with every device in Verdict::devices. A child that runs past
// the limit is killed with its whole process group: TIMEOUT. One that dies of a signal, or exits without a
// verdict: RUNTIME_ERROR with what happened and the tail of its stderr. `binary` receives the compiled kernel
// when the child got that far. Throws std::runtime_error when the worker cannot be started or cannot validate
// anything (no Vulkan device, no reference module for the op), or when one of `devices` cannot be created
// (naming it and why: a kernel is never validated on fewer devices than asked), and std::invalid_argument for
// a broken spec, as validate_kernel does. Verdict::reduced names what the protocol of `devices` lacks
// (validation_protocol_here).
Verdict evaluate_isolated(const IsolationSettings& settings, const OpSpec& spec, const std::string& glsl,
                          const ValidationOptions& options, KernelBinary* binary = nullptr);

// The child's side, `kernelgen validate-worker --reference <module>`: loads the op's reference module, reads
// one request (spec, GLSL, seed, timing runs, the subgroup size it requires, if any) as JSON from stdin,
// writes JSON lines to stdout (the device, the compiled binary, the verdict, or an error) and returns the
// exit code. Test hook: with KERNELGEN_TEST_WORKER_ABORT=1 it aborts right after reading the request, which
// is how the tests make a validation process crash; with KERNELGEN_TEST_WORKER_FAULT=device_lost or
// out_of_memory its first dispatch fails as a lost device or exhausted memory would, and with =timing the
// timing of a passing kernel fails.
int run_validation_worker(const std::filesystem::path& reference_module);

}  // namespace kernelgen
