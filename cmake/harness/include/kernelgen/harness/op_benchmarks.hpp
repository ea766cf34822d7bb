#pragma once
// The benchmarks of an op's generated benchmark program (cmake/templates/bench.cpp.in), on Google Benchmark.
#include <kernelgen/harness/op_under_test.hpp>

namespace kernelgen::harness {

// Registers the op's benchmarks and runs those the command line selects (Google Benchmark's flags); the
// program's exit status: 1 for an unrecognised flag or a timed output that differs from the reference, else 0.
// Once a process, as Google Benchmark runs.
//
// At the op's BENCH_DIMS (CPU_BENCH_DIMS on a CPU device such as lavapipe, where a real model's size would take
// minutes a run), on the validation's uniform and normal cases drawn from the run's seed, with the outputs
// poisoned first:
//   BM_<op>_gpu                 GPU time of one dispatch through kernelgen's timing harness (kernelgen/timing.hpp),
//                               the one the search and `kernelgen validate --time` use: the runs alternate between
//                               the two cases' buffers, each run's outputs poisoned again before it; then the
//                               outputs the timing left are checked against the reference
//                               (kernelgen/validation/timed_output.hpp)
//   BM_<op>_wrapper_call        wall time of a call through the generated wrapper: submit and wait
//   BM_<op>_submit_in_flight/4  time per call with up to 4 op.submit()s in flight
//   BM_<op>_bare_submit/poll:1  wall time of the same dispatch recorded by hand and submitted with bare Vulkan
//   BM_<op>_bare_submit/poll:0  calls, waited for by polling the fence (as the wrapper does) or by vkWaitForFences
int run_op_benchmarks(const OpUnderTest& op, int argc, char** argv);

}  // namespace kernelgen::harness
