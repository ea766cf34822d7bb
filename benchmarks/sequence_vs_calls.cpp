// N dispatches of the relu kernel: N wrapper calls (N submits and waits) against one Sequence holding all N
// (one submit). Run side by side, the ratio is what recording a sequence saves per dispatch.
#include <benchmark/benchmark.h>

#include <kernelgen/ops/relu.hpp>
#include <vector>

namespace {

using Relu = kernelgen::ops::relu;

// A batch of 4 feature maps, 8192 floats.
struct Fixture {
  kernelgen::Device device;
  Relu relu{device};
  const Relu::Dims dims{4};
  kernelgen::Buffer x{device, Relu::x_bytes(dims)};
  kernelgen::Buffer y{device, Relu::y_bytes(dims)};
  Fixture() {
    std::vector<float> values(Relu::x_elements(dims), -1.0f);
    x.upload(std::span<const float>(values));
  }
};

Fixture& fixture() {
  static Fixture instance;
  return instance;
}

void BM_separate_calls(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state)
    for (int64_t i = 0; i < state.range(0); ++i) f.relu(f.dims, f.x, f.y);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_separate_calls)->Arg(16)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_one_sequence(benchmark::State& state) {
  Fixture& f = fixture();
  kernelgen::Sequence sequence(f.device, 0);
  for (int64_t i = 0; i < state.range(0); ++i) f.relu.record(sequence, f.dims, f.x, f.y);
  for (auto _ : state) sequence.run();
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_one_sequence)->Arg(16)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
