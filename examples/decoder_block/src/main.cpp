// The decoder block application:
//   decoder_block check --config tiny --tokens 7 --seed 1 --weights tiny.safetensors
//     makes the weights from the seed, writes them and reads them back, runs one forward pass on the GPU
//     (twice, through the one recording) and checks every stage against the CPU reference; exit 0 when all
//     pass.
//   decoder_block check --config tiny --past 40 --tokens 1 ...
//     the same for a decode step: a prefill of 40 tokens fills the KV cache, then one token's step is
//     checked.
//   decoder_block bench --config llama --tokens 512 --weights llama.safetensors --json times.json
//   decoder_block bench --config llama --past 4096 --tokens 1 --weights llama.safetensors
//     times the recorded step (a prefill, or a decode step after --past tokens) with GPU timestamps per
//     dispatch (medians over --iterations).
#include "block_check.hpp"
#include "block_config.hpp"
#include "block_reference.hpp"
#include "decoder_block.hpp"
#include "weights.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace {

using block::Matrix;

// How long bench's calls poll for the GPU before sleeping in the driver. A prefill of 512 tokens takes 1.3 ms on
// an H200, past the runtime's default spin of 1000 us, and a wait that sleeps wakes tens of microseconds after
// the GPU ends: 1347-1389 us from submit to wait against 1307-1310 with this spin, the GPU's time the same
// (benchmarks/RESULTS.md). PyTorch's event synchronize, which decoder_block_torch.py times, polls too.
constexpr int kBenchSpinWaitUs = 20'000;

// The block's input: tokens x hidden, uniform in [-1, 1), from the seed.
Matrix make_input(int64_t tokens, int64_t hidden, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
  Matrix x(tokens, hidden);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    x.data()[i] = static_cast<float>(2.0 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1.0);
  return x;
}

// Makes the weights, writes them, and reads them back: the block runs on what the file holds.
block::BlockWeights weights_through_file(const block::BlockConfig& config, uint64_t seed,
                                         const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    std::printf("writing %s weights (seed %llu) to %s\n", config.name.c_str(),
                static_cast<unsigned long long>(seed), path.c_str());
    block::write_weights(block::make_weights(config, seed), path);
  }
  return block::read_weights(config, path);
}

// The prompt before a step: a prefill of x_all's first `past` rows fills the KV cache's first `past`
// positions.
void fill_cache(block::BlockState& state, const Matrix& x_all, int64_t past) {
  if (past == 0) return;
  block::DecoderBlock prefill(state, 0, past, false);
  const Matrix prompt = x_all.topRows(past);
  prefill.set_input({prompt.data(), static_cast<size_t>(prompt.size())});
  prefill.forward();
}

int check(const block::BlockConfig& config, int64_t past, int64_t tokens, uint32_t keys_per_split,
          uint32_t prefill_splits, uint64_t seed, const std::filesystem::path& path, bool tamper) {
  std::filesystem::remove(path);  // the check writes the file from its seed, every time
  const block::BlockWeights weights = weights_through_file(config, seed, path);
  const int64_t ctx = past + tokens;
  const Matrix x_all = make_input(ctx, config.hidden, seed);
  const Matrix x = x_all.bottomRows(tokens);

  kernelgen::Device device;
  std::printf("device: %s\n", device.info().name.c_str());
  block::BlockState state(device, weights, ctx);
  fill_cache(state, x_all, past);
  block::DecoderBlock gpu(state, past, tokens, false, keys_per_split, prefill_splits);
  for (const std::string& line : gpu.kernels()) std::printf("  %s\n", line.c_str());
  gpu.set_input({x.data(), static_cast<size_t>(x.size())});
  gpu.forward();
  const std::vector<float> first = gpu.stage("output");
  gpu.forward();  // the same recording, submitted again
  if (gpu.stage("output") != first) {
    std::printf("FAILED: a second submission of the recording gave another output\n");
    return 1;
  }

  // Each stage twice: against the reference's whole chain from x (bounds carried through every stage), and
  // against the reference run on the GPU's own inputs to that stage (each dispatch's rounding alone).
  const std::vector<block::Stage> chain = block::reference_block(weights, x_all, past, tokens);
  // Each stage downloaded once, for both references and both comparisons.
  std::map<std::string, std::vector<float>> downloaded;
  auto download = [&](const std::string& name) -> const std::vector<float>& {
    auto [it, inserted] = downloaded.try_emplace(name);
    if (inserted)
      it->second = name == "k_cache" || name == "v_cache" ? state.cache(name, ctx) : gpu.stage(name);
    return it->second;
  };
  auto gpu_as_stage = [&](const std::string& name) {
    const std::vector<float>& values = download(name);
    const auto cols = name == "mlp_gate_up" ? config.ffn : config.hidden;
    const auto rows = static_cast<Eigen::Index>(values.size()) / cols;
    return block::Stage{name, Eigen::Map<const Matrix>(values.data(), rows, cols), Matrix::Zero(rows, cols)};
  };
  const std::vector<block::Stage> local = block::reference_block(weights, x, past, tokens, gpu_as_stage);
  // --tamper moves output element 0 by 5 times its bound as a stage alone (the tighter of the two).
  std::vector<float> tampered = download("output");
  if (tamper) tampered[0] += 5.0f * local.back().bound(0, 0);
  auto gpu_stage = [&](const std::string& name) -> const std::vector<float>& {
    return name == "output" ? tampered : download(name);
  };
  const auto chain_results = block::check_block(chain, gpu_stage);
  const auto local_results = block::check_block(local, gpu_stage);

  std::printf(
      "%s block, %lld tokens after %lld, %u barriers; each stage against the CPU reference, of the whole "
      "chain from x and of the stage alone on the GPU's inputs:\n",
      config.name.c_str(), static_cast<long long>(tokens), static_cast<long long>(past), gpu.barriers());
  std::printf("  %-15s %11s %11s %9s   %11s %9s\n", "stage", "chain error", "relative", "of bound",
              "alone error", "of bound");
  int failed = 0;
  for (size_t i = 0; i < chain_results.size(); ++i) {
    const block::StageResult &c = chain_results[i], &l = local_results[i];
    std::printf("  %-15s %11.3g %11.3g %8.1f%%   %11.3g %8.1f%%\n", c.name.c_str(), c.max_error,
                c.max_relative, 100.0 * c.max_bound_used, l.max_error, 100.0 * l.max_bound_used);
    if (c.unbounded > 0)
      std::printf("  (%s: %ld elements without a whole-chain bound: it passed f16's range)\n", c.name.c_str(),
                  c.unbounded);
    for (const auto& [what, r] : {std::pair{"whole chain", &c}, std::pair{"alone", &l}})
      if (!r->first_failure.empty()) {
        std::printf("FAILED: stage %s (%s): %s\n", r->name.c_str(), what, r->first_failure.c_str());
        ++failed;
      }
  }
  if (failed) return 1;
  std::printf("passed: every element of every stage within its bound\n");
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int bench(const block::BlockConfig& config, int64_t past, int64_t tokens, uint32_t keys_per_split,
          uint32_t prefill_splits, uint64_t seed, const std::filesystem::path& path, int iterations,
          int spin_wait_us, const std::string& json_path) {
  const block::BlockWeights weights = weights_through_file(config, seed, path);
  const Matrix x_all = make_input(past + tokens, config.hidden, seed);
  kernelgen::DeviceOptions options;
  options.spin_wait_us = spin_wait_us;
  kernelgen::Device device(options);
  block::BlockState state(device, weights, past + tokens);
  fill_cache(state, x_all, past);  // once: the prompt before the timed step
  block::DecoderBlock gpu(state, past, tokens, true, keys_per_split, prefill_splits);
  const Matrix x = x_all.bottomRows(tokens);
  gpu.set_input({x.data(), static_cast<size_t>(x.size())});
  // Warm-up: pipelines and caches, and the GPU's clocks, which drop while the weights are made or read and take
  // longer to climb than three calls: a first process on an idle H200 timed every stage 4.8 times slower after
  // three calls. So at least three calls and at least one second of them.
  const auto warm_up_start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || std::chrono::steady_clock::now() - warm_up_start < std::chrono::seconds(1); ++i)
    gpu.forward();

  std::map<std::string, std::vector<double>> per_stage;
  std::vector<std::string> order;
  std::vector<double> gpu_total, wall;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    gpu.forward();
    wall.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    double total = 0.0;
    for (const auto& [name, ns] : gpu.dispatch_times()) {
      if (per_stage[name].empty()) order.push_back(name);
      per_stage[name].push_back(ns / 1000.0);
      total += ns / 1000.0;
    }
    gpu_total.push_back(total);
  }
  std::printf("device: %s\n%s block, %lld tokens after %lld, medians of %d calls (a wait polls %u us):\n",
              device.info().name.c_str(), config.name.c_str(), static_cast<long long>(tokens),
              static_cast<long long>(past), iterations, device.spin_wait_us());
  for (const std::string& line : gpu.kernels()) std::printf("  %s\n", line.c_str());
  nlohmann::json out = {
      {"device", device.info().name}, {"config", config.name},   {"tokens", tokens}, {"past", past},
      {"iterations", iterations},     {"kernels", gpu.kernels()},  {"spin_wait_us", device.spin_wait_us()}};
  const double total = median(gpu_total);
  for (const std::string& name : order) {
    const double us = median(per_stage[name]);
    std::printf("  %-15s %10.1f us %6.1f%%\n", name.c_str(), us, 100.0 * us / total);
    out["stages_us"][name] = us;
  }
  std::printf("  %-15s %10.1f us (GPU, timestamps)\n  %-15s %10.1f us (submit to wait, host)\n", "total",
              total, "wall", median(wall));
  std::printf("  %.0f tokens/s\n", static_cast<double>(tokens) / (median(wall) * 1e-6));
  out["gpu_us"] = total;
  out["wall_us"] = median(wall);
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"A Llama-style decoder block on kernelgen ops"};
  app.require_subcommand(1);
  std::string config_name = "tiny", weights_path, json_path;
  int64_t tokens = 7, past = 0;
  uint64_t seed = 1;
  int iterations = 20;
  int spin_wait_us = kBenchSpinWaitUs;
  uint32_t keys_per_split = block::kKeysPerSplit, prefill_splits = 0;
  bool tamper = false;
  auto common = [&](CLI::App* command) {
    command->add_option("--config", config_name, "tiny, mini or llama")->capture_default_str();
    command->add_option("--tokens", tokens, "new tokens in the step")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    command->add_option("--past", past, "tokens before them, in the KV cache (0: a prefill)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1 << 20));
    command->add_option("--seed", seed, "the weights' and the input's seed")->capture_default_str();
    command->add_option("--weights", weights_path, "the safetensors file of the weights")->required();
    command
        ->add_option(
            "--keys-per-split", keys_per_split,
            "a decode step's cache positions per workgroup of its split attention (head dims other than 128)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    command
        ->add_option(
            "--prefill-splits", prefill_splits,
            "a prefill's down projection in this many ranges of k (1: one dispatch; 0: two where its "
            "tiles are few)")
        ->capture_default_str()
        ->check(CLI::Range(0, 64));
  };
  CLI::App* check_command =
      app.add_subcommand("check", "one forward pass, checked against the CPU reference");
  common(check_command);
  check_command->add_flag("--tamper", tamper, "move one output element past its bound (the check must fail)");
  CLI::App* bench_command = app.add_subcommand("bench", "time the recorded forward pass on the GPU");
  common(bench_command);
  bench_command->add_option("--iterations", iterations, "timed forward passes")->capture_default_str();
  bench_command
      ->add_option("--spin-wait-us", spin_wait_us,
                   "how long a call's wait polls the GPU before it sleeps in the driver (-1: the runtime's "
                   "default, 1000 on a GPU)")
      ->capture_default_str()
      ->check(CLI::Range(-1, 10'000'000));
  bench_command->add_option("--json", json_path, "write the medians here as JSON");
  CLI11_PARSE(app, argc, argv);
  try {
    const block::BlockConfig config = block::config_named(config_name);
    if (*check_command)
      return check(config, past, tokens, keys_per_split, prefill_splits, seed, weights_path, tamper);
    return bench(config, past, tokens, keys_per_split, prefill_splits, seed, weights_path, iterations,
                 spin_wait_us, json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "decoder_block: %s\n", e.what());
    return 2;
  }
}
