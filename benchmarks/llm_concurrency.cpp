// Wall time of SAMPLES concurrent completions, the way a search round requests them (std::async around
// llm::complete, over libcurl), against the fake OpenAI server answering each request after 1 s. Concurrent
// samples should cost about one latency, not SAMPLES of them.
#include <benchmark/benchmark.h>

#include <future>
#include <vector>

#include "fake_llm_server.hpp"
#include "kernelgen/llm/client.hpp"

namespace {

constexpr double kLatencySeconds = 1.0;

kernelgen::test::FakeLlmServer& server() {
  static kernelgen::test::FakeLlmServer instance;
  static const bool scripted = [] {
    instance.set_responder([](const kernelgen::test::ReceivedRequest&, size_t) {
      kernelgen::test::ScriptedResponse reply = kernelgen::test::openai_reply("```glsl\nvoid main() {}\n```");
      reply.delay_s = kLatencySeconds;
      return reply;
    });
    return true;
  }();
  (void)scripted;
  return instance;
}

void BM_ConcurrentCompletions(benchmark::State& state) {
  const int samples = static_cast<int>(state.range(0));
  kernelgen::llm::ProviderSettings settings;
  settings.provider = "openai";
  settings.model = "gpt-4o-mini";
  settings.api_key = "sk-bench";
  settings.base_url = server().base_url();
  const kernelgen::llm::Prompt prompt{"You write Vulkan compute shaders.", "Write relu.", "bench"};
  for (auto _ : state) {
    std::vector<std::future<kernelgen::llm::Completion>> pending;
    for (int s = 0; s < samples; ++s)
      pending.push_back(std::async(std::launch::async, [&, s] {
        return kernelgen::llm::complete(settings, prompt, "relu/r1/s" + std::to_string(s));
      }));
    for (auto& sample : pending) benchmark::DoNotOptimize(sample.get());
  }
  state.counters["samples"] = samples;
  state.counters["latency_s"] = kLatencySeconds;
  state.counters["requests_in_flight_max"] = server().max_in_flight();
}
BENCHMARK(BM_ConcurrentCompletions)
    ->ArgName("samples")
    ->Arg(1)
    ->Arg(8)
    ->UseRealTime()
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
