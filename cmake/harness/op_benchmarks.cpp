// The benchmarks of an op's generated benchmark program: see kernelgen/harness/op_benchmarks.hpp.
#include <kernelgen/harness/op_benchmarks.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <cstdio>
#include <kernelgen/timing.hpp>
#include <kernelgen/validation/case_buffers.hpp>
#include <kernelgen/validation/cases.hpp>
#include <kernelgen/validation/sizes.hpp>
#include <kernelgen/validation/timed_output.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kernelgen::harness {

namespace {

// The inputs of the timed runs: the first kTimedInputSets cases of timed_size_case_names() at these dims.
std::vector<TestCase> timed_cases(const OpSpec& spec, uint64_t seed, const DimValues& dims) {
  std::vector<TestCase> cases;
  for (size_t c = 0; c < kTimedInputSets; ++c) cases.push_back(make_case(spec, timed_size_case_names()[c], seed, dims));
  return cases;
}

// What every benchmark of the op shares, made before they are registered: the device, a wrapper object, the size
// timed and its buffers: a set per timed case (the validation's uniform and normal cases), outputs poisoned. The
// GPU timing rotates through the sets, resetting the outputs before every run; the wall-time benchmarks call on
// the first set, their outputs not reset (a reset inside their timed loop would be timed).
struct Fixture {
  const OpUnderTest& op;
  Device device;
  std::unique_ptr<Wrapper> wrapper = op.open(device);
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(op.spec_json));
  const bool cpu = is_cpu_device(device.info());
  const DimValues dims = spec.bench_dims(cpu);
  const double bytes = spec.bytes_at(dims);
  const double flops = spec.flops_at(dims);
  const uint64_t base_seed = seed(op);
  TimedBuffers timed{device, spec, timed_cases(spec, base_seed, dims)};
  std::vector<Buffer>& buffers = timed.buffers(0);

  explicit Fixture(const OpUnderTest& op_under_test) : op(op_under_test) {
    device.flush_uploads();  // the bare submits go straight to the queue
    // A second of calls first: a GPU idle until now runs at a fraction of its clock, and the first benchmark
    // would time the clock ramp instead of the kernel. A CPU device has no such ramp to wait out.
    if (cpu) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < until) wrapper->call(dims, buffers);
  }
  static uint64_t seed(const OpUnderTest& op) {
    const uint64_t s = base_seed_from_environment();
    // On stderr: stdout is Google Benchmark's report, JSON with --benchmark_format=json (benchmarks/compare).
    std::fprintf(stderr, "kernelgen: op %s, inputs from base seed %llu (replay with KERNELGEN_SEED=%llu)\n",
                 op.name, static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }
  // What is wrong with the outputs the timed runs left in each set, or nothing; the largest DIMS is a size small
  // enough for the whole reference.
  std::optional<std::string> wrong_output() const {
    const TimedOutputCheck check(spec, op.reference, dims, base_seed, largest_dims(spec), timed.cases().size());
    for (size_t set = 0; set < timed.cases().size(); ++set)
      if (const auto wrong = check({timed.cases()[set], timed.outputs(set), true})) return wrong->detail;
    return std::nullopt;
  }
  void report_throughput(benchmark::State& state) const {
    state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
    if (flops > 0) state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  }
};

// The op of run_op_benchmarks (once a process: Google Benchmark runs once), its fixture, and whether every timed
// output checked so far matched the reference (the exit status).
const OpUnderTest* g_op = nullptr;
std::unique_ptr<Fixture> g_fixture;
bool g_outputs_right = true;

Fixture& fixture() {
  if (!g_fixture) g_fixture = std::make_unique<Fixture>(*g_op);
  return *g_fixture;
}

// An iteration is one submission of 31 back-to-back runs (plus the cache flushes), each between its own
// timestamps, and its time is their median; a fixed count of them (gpu_iterations), since Google Benchmark
// would run min_time / median of them.
void gpu_time(benchmark::State& state) {
  Fixture& f = fixture();
  DispatchTimer timer(f.device, f.timed.bindings(), [&](Sequence& sequence, const std::vector<const Buffer*>& bound) {
    f.wrapper->record(sequence, f.dims, bound);
  });
  double spread_ns = 0;
  for (auto _ : state) {
    const TimingStats stats = timer.measure();
    state.SetIterationTime(stats.median_ns * 1e-9);
    spread_ns += stats.spread_ns();
  }
  if (const auto wrong = f.wrong_output()) {
    g_outputs_right = false;
    std::fprintf(stderr, "kernelgen: op %s: %s\n", f.op.name, wrong->c_str());
    state.SkipWithError("the timed output differs from the reference (above)");
    return;
  }
  f.report_throughput(state);
  state.counters["spread_us"] = spread_ns * 1e-3 / static_cast<double>(state.iterations());
  state.counters["flush_MiB"] = static_cast<double>(timer.flush_bytes() >> 20);
  const std::string variant = f.wrapper->variant();
  state.SetLabel(f.device.info().name + (variant.empty() ? "" : ", variant " + variant) +
                 (f.cpu ? " at CPU_BENCH_DIMS" : ""));
}

void wrapper_call(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) f.wrapper->call(f.dims, f.buffers);
  f.report_throughput(state);
}

void submit_in_flight(benchmark::State& state) {
  Fixture& f = fixture();
  std::vector<Submission> in_flight(static_cast<std::size_t>(state.range(0)));
  std::size_t next = 0;
  for (auto _ : state) {
    in_flight[next].wait();
    in_flight[next] = f.wrapper->submit(f.dims, f.buffers);
    next = (next + 1) % in_flight.size();
  }
  for (auto& submission : in_flight) submission.wait();
  f.report_throughput(state);
}

void bare_submit(benchmark::State& state) {
  const bool poll = state.range(0) == 1;
  Fixture& f = fixture();
  VkDevice device = f.device.vk_device();
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = f.device.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer command_buffer;
  vkAllocateCommandBuffers(device, &allocate, &command_buffer);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(command_buffer, &begin);
  std::vector<VkBuffer> handles;
  for (const auto& buffer : f.buffers) handles.push_back(buffer.vk_buffer());
  const std::vector<uint32_t> words = f.wrapper->dim_words(f.dims);
  f.wrapper->kernel().record(command_buffer, handles, f.wrapper->launch_grid(f.dims), words);
  vkEndCommandBuffer(command_buffer);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  vkCreateFence(device, &fence_info, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer;
  double submit_seconds = 0;  // inside vkQueueSubmit itself
  for (auto _ : state) {
    const auto before = std::chrono::steady_clock::now();
    vkQueueSubmit(f.device.vk_queue(), 1, &submit, fence);
    submit_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    if (poll)
      while (vkGetFenceStatus(device, fence) == VK_NOT_READY) {
      }
    else
      vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    vkResetFences(device, 1, &fence);
  }
  vkDestroyFence(device, fence, nullptr);
  vkFreeCommandBuffers(device, f.device.vk_command_pool(), 1, &command_buffer);
  f.report_throughput(state);
  state.counters["vkQueueSubmit_us"] = submit_seconds * 1e6 / static_cast<double>(state.iterations());
}

}  // namespace

int run_op_benchmarks(const OpUnderTest& op, int argc, char** argv) {
  g_op = &op;
  // 16 iterations on a GPU; 4 on a CPU device, where a run at CPU_BENCH_DIMS takes milliseconds and the timing
  // says whether the benchmark works rather than how fast a GPU is (CI runs every op's).
  const int gpu_iterations = fixture().cpu ? 4 : 16;
  const std::string prefix = std::string("BM_") + op.name;
  benchmark::RegisterBenchmark((prefix + "_gpu").c_str(), gpu_time)
      ->UseManualTime()->Iterations(gpu_iterations)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "_wrapper_call").c_str(), wrapper_call)
      ->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "_submit_in_flight").c_str(), submit_in_flight)
      ->Arg(4)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((prefix + "_bare_submit").c_str(), bare_submit)
      ->ArgName("poll")->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_fixture.reset();  // the device and buffers, before the statics they use are destroyed
  return g_outputs_right ? 0 : 1;
}

}  // namespace kernelgen::harness
