#pragma once
// The checks of an op's generated test (cmake/templates/test.cpp.in), one function per TEST there. Each reports
// through GoogleTest's assertions, and skips (GTEST_SKIP) where this machine cannot run what it checks.
#include <kernelgen/harness/op_under_test.hpp>

namespace kernelgen::harness {

// The checked-in kernel passes validation on fresh inputs, at every size of its DIMS and at sizes drawn from the
// run's seed, on every validation device (KERNELGEN_VALIDATION_DEVICES; by default the selected device and
// every CPU device beside it), as the build step validates. Where those devices lack a CPU device (lavapipe) or
// this machine the Khronos layer, it fails naming what to install, unless KERNELGEN_REDUCED_VALIDATION=1 accepts
// reduced validation (then it says so); a validation device that cannot be created fails it.
void checked_in_kernel_passes_validation(const OpUnderTest& op);

// The kernel the wrapper embeds is what the checked-in kernel.comp, the file reviewers read, compiles to.
void runs_what_the_checked_in_source_compiles_to(const OpUnderTest& op);

// A call through the wrapper at the smallest and the largest DIMS, twice each (the second call submits the
// recording again), matches the reference.
void wrapper_call_matches_reference(const OpUnderTest& op);

// A call through the wrapper at the size the op is benchmarked and timed at on this device (BENCH_DIMS,
// CPU_BENCH_DIMS on a CPU device) on each case of timed_size_case_names(), its outputs poisoned first, checked as
// a timing's outputs are (kernelgen/validation/timed_output.hpp): right at the validated sizes is not enough.
void wrapper_call_at_the_timed_size_matches_reference(const OpUnderTest& op);

// Each variant's kernel.comp under generated/<op>/variants/ compiles to what the wrapper embeds.
void variants_run_what_their_checked_in_sources_compile_to(const OpUnderTest& op);

// The wrapper runs the first of VARIANTS, in their declared order, that this device can run, else the op's
// own kernel (lavapipe, which runs no cooperative matrices, shows that fallback). Skipped while
// KERNELGEN_VARIANT picks a kernel by hand.
void the_wrapper_runs_the_first_variant_this_device_runs(const OpUnderTest& op);

// Each variant this device can run passes validation (the wrapper runs it here); a device that cannot runs the
// op's own kernel, validated above. Refused as the check above refuses a reduced protocol.
void every_variant_this_device_can_run_passes_validation(const OpUnderTest& op);

}  // namespace kernelgen::harness
