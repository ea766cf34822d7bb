// Where a call's time goes (issue 9): one relu dispatch at BENCH_DIMS submitted and waited for with bare
// Vulkan calls, adding one at a time what kernelgen's Sequence does: the simultaneous-use flag (so a recording
// may be queued again while it runs), barriers at its start and end (as wide as ALL_COMMANDS, or only the
// compute and transfer stages; the end one with or without the host), a yield between fence polls, a blocking
// vkWaitForFences. Beside them Sequence::run() itself. Side by side in one run, the differences are the cost of
// each.
//
// A loop of single submits keeps an H100 busy a third of the time, and its driver then lowers the SM clock
// second by second (1980 MHz down to 400 in the runs behind docs/runtime.md), so each benchmark timed in a row
// would find a slower GPU than the one before. Each one therefore starts with a third of a second of
// back-to-back dispatches, which brings the clock back up.
#include <benchmark/benchmark.h>

#include <kernelgen/ops/relu.hpp>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using Relu = kernelgen::ops::relu;

struct Fixture {
  kernelgen::Device device;
  Relu relu{device};
  const Relu::Dims dims{1024};
  kernelgen::Buffer x{device, Relu::x_bytes(dims)};
  kernelgen::Buffer y{device, Relu::y_bytes(dims)};
  Fixture() {
    std::vector<float> values(Relu::x_elements(dims), -1.0f);
    x.upload(std::span<const float>(values));
    device.flush_uploads();
  }
};

Fixture& fixture() {
  static Fixture instance;
  return instance;
}

// Back-to-back dispatches for a third of a second: the GPU busy, its clock up.
void raise_clocks(Fixture& f) {
  kernelgen::Sequence busy(f.device, 0);
  for (int i = 0; i < 64; ++i) f.relu.record(busy, f.dims, f.x, f.y);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(330);
  while (std::chrono::steady_clock::now() < until) busy.run();
}

void barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags source, VkAccessFlags source_access,
             VkPipelineStageFlags destination, VkAccessFlags access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = source_access;
  barrier.dstAccessMask = access;
  vkCmdPipelineBarrier(command_buffer, source, destination, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

constexpr VkPipelineStageFlags kWork = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWorkWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkAccessFlags kWorkAccess = kWorkWrites | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;

// Flags of a bare recording: 1 = simultaneous use, 2 = a start barrier over ALL_COMMANDS, 4 = yield between
// polls, 8 = vkWaitForFences, 16 = an end barrier over ALL_COMMANDS and the host, 32 = a start barrier over the
// compute and transfer stages only, 64 = an end barrier over those stages and the host, 128 = an end barrier
// from those stages to the host alone (kernelgen's).
VkCommandBuffer record_bare(Fixture& f, int64_t flags) {
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = f.device.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer command_buffer;
  vkAllocateCommandBuffers(f.device.vk_device(), &allocate, &command_buffer);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (flags & 1) begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  vkBeginCommandBuffer(command_buffer, &begin);
  if (flags & 2)
    barrier(command_buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  if (flags & 32) barrier(command_buffer, kWork, kWorkWrites, kWork, kWorkAccess);
  const VkBuffer handles[] = {f.x.vk_buffer(), f.y.vk_buffer()};
  f.relu.kernel().record(command_buffer, handles, Relu::grid(f.dims), Relu::dim_words(f.dims));
  if (flags & 16)
    barrier(command_buffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_HOST_READ_BIT);
  if (flags & 64)
    barrier(command_buffer, kWork, kWorkWrites, kWork | VK_PIPELINE_STAGE_HOST_BIT, kWorkAccess | VK_ACCESS_HOST_READ_BIT);
  if (flags & 128) barrier(command_buffer, kWork, kWorkWrites, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  vkEndCommandBuffer(command_buffer);
  return command_buffer;
}

// A bare recording (state.range(0): its flags) submitted with vkQueueSubmit and waited for by hand.
void BM_bare(benchmark::State& state) {
  const int64_t flags = state.range(0);
  const bool yield = flags & 4, block = flags & 8;
  Fixture& f = fixture();
  raise_clocks(f);
  const VkDevice device = f.device.vk_device();
  VkCommandBuffer command_buffer = record_bare(f, flags);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence;
  vkCreateFence(device, &fence_info, nullptr, &fence);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer;
  for (auto _ : state) {
    vkQueueSubmit(f.device.vk_queue(), 1, &submit, fence);
    if (block) {
      vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    } else {
      while (vkGetFenceStatus(device, fence) == VK_NOT_READY)
        if (yield) std::this_thread::yield();
    }
    vkResetFences(device, 1, &fence);
  }
  vkDestroyFence(device, fence, nullptr);
  vkFreeCommandBuffers(device, f.device.vk_command_pool(), 1, &command_buffer);
}
BENCHMARK(BM_bare)
    ->ArgName("flags")
    ->Arg(0)
    ->Arg(1)
    ->Arg(4)
    ->Arg(2)
    ->Arg(16)
    ->Arg(2 | 16)
    ->Arg(32)
    ->Arg(64)
    ->Arg(32 | 64)
    ->Arg(1 | 2 | 4 | 16)
    ->Arg(1 | 4 | 32 | 64)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The bare recording of kernelgen's own barriers (flags 1|32|128) handed to Device::submit() and waited for
// through the Submission: kernelgen's submit and wait path without a Sequence.
void BM_device_submit(benchmark::State& state) {
  Fixture& f = fixture();
  raise_clocks(f);
  VkCommandBuffer command_buffer = record_bare(f, 1 | 32 | 128);
  for (auto _ : state) f.device.submit(command_buffer).wait();
  vkFreeCommandBuffers(f.device.vk_device(), f.device.vk_command_pool(), 1, &command_buffer);
}
BENCHMARK(BM_device_submit)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Sequence::run(), with the time inside submit() and inside wait() as counters.
void BM_sequence_run(benchmark::State& state) {
  Fixture& f = fixture();
  raise_clocks(f);
  kernelgen::Sequence sequence(f.device, 0);
  f.relu.record(sequence, f.dims, f.x, f.y);
  double submit_seconds = 0, wait_seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    kernelgen::Submission submission = sequence.submit();
    const auto submitted = std::chrono::steady_clock::now();
    submission.wait();
    const auto done = std::chrono::steady_clock::now();
    submit_seconds += std::chrono::duration<double>(submitted - start).count();
    wait_seconds += std::chrono::duration<double>(done - submitted).count();
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["submit_us"] = submit_seconds * 1e6 / iterations;
  state.counters["wait_us"] = wait_seconds * 1e6 / iterations;
}
BENCHMARK(BM_sequence_run)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_wrapper_call(benchmark::State& state) {
  Fixture& f = fixture();
  raise_clocks(f);
  for (auto _ : state) f.relu(f.dims, f.x, f.y);
}
BENCHMARK(BM_wrapper_call)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Blocking waits last: on the H100's driver, polled waits in a process that has made blocking ones come out
// slower for a while after (45.9 us for Sequence::run() against 16.8 in a fresh process, clocks at 1980 MHz).
BENCHMARK(BM_bare)->ArgName("flags")->Arg(8)->Arg(1 | 2 | 8 | 16)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sequence_run)->Name("BM_sequence_run_after_blocking_waits")->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
