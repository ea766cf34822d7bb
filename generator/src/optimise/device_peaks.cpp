#include "kernelgen/optimise/device_peaks.hpp"

#include <algorithm>
#include <cstdio>

#include "kernelgen/spirv_interface.hpp"
#include <nlohmann/json.hpp>

#include "kernelgen/buffer.hpp"
#include "kernelgen/compile/compile.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/timing.hpp"

namespace kernelgen {

namespace {

// One vec4 per invocation, over a 2-D grid of workgroups (a 1-D one would exceed 65535 of them).
constexpr const char* kCopyProbe = R"(#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint vec4s; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Source { vec4 source[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Target { vec4 target[]; };
void main() {
  const uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (i < dims.vec4s) target[i] = source[i];
}
)";

// Eight independent vec4 FMA chains per invocation: 64 FLOP per iteration, nothing but registers.
constexpr const char* kFmaProbe = R"(#version 450
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint iterations; } dims;
layout(set = 0, binding = 0, std430) writeonly buffer Target { vec4 target[]; };
void main() {
  const vec4 seed = vec4(float(gl_GlobalInvocationID.x) * 1e-7);
  vec4 c0 = seed, c1 = seed + 1.0, c2 = seed + 2.0, c3 = seed + 3.0;
  vec4 c4 = seed + 4.0, c5 = seed + 5.0, c6 = seed + 6.0, c7 = seed + 7.0;
  const vec4 scale = vec4(0.999999), shift = vec4(1e-6);
  for (uint i = 0u; i < dims.iterations; ++i) {
    c0 = fma(c0, scale, shift); c1 = fma(c1, scale, shift); c2 = fma(c2, scale, shift); c3 = fma(c3, scale, shift);
    c4 = fma(c4, scale, shift); c5 = fma(c5, scale, shift); c6 = fma(c6, scale, shift); c7 = fma(c7, scale, shift);
  }
  target[gl_GlobalInvocationID.x] = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7;
}
)";

std::vector<uint32_t> compile_probe(const char* source) {
  Compilation compiled = compile_glsl(source);
  if (!compiled.ok) throw std::logic_error("kernelgen: a device probe does not compile: " + compiled.log);
  return std::move(compiled.spirv);
}

double copy_gbytes_per_second(Device& device, bool cpu) {
  // On a CPU device, as much as a kernel timed there moves (its caches serve part of it); on a GPU, far more than
  // its caches hold.
  const uint32_t vec4s = (cpu ? 8u : 256u) << 16;  // 8 or 256 MiB each way
  Buffer source(device, vec4s * size_t{16}), target(device, vec4s * size_t{16});
  Kernel kernel(device, compile_probe(kCopyProbe), 2, 1);
  const Grid grid{1024, vec4s / 256u / 1024u, 1};
  const std::vector<uint32_t> pushed{vec4s};
  TimingOptions options;
  options.runs = 9;
  options.flush_bytes = 0;  // the buffers are larger than any cache
  const TimingStats stats = time_dispatches(
      device, [&](Sequence& s) { s.dispatch(kernel, {&source, &target}, grid, pushed); }, options);
  return 2.0 * vec4s * 16.0 / stats.median_ns;
}

double fma_gflops(Device& device, bool cpu) {
  const uint32_t workgroups = cpu ? 32u : 8192u, iterations = cpu ? 512u : 2048u;
  Buffer target(device, size_t{workgroups} * 256u * 16u);
  Kernel kernel(device, compile_probe(kFmaProbe), 1, 1);
  const std::vector<uint32_t> pushed{iterations};
  TimingOptions options;
  options.runs = 9;
  options.flush_bytes = 0;
  const TimingStats stats =
      time_dispatches(device, [&](Sequence& s) { s.dispatch(kernel, {&target}, {workgroups, 1, 1}, pushed); }, options);
  return static_cast<double>(workgroups) * 256.0 * iterations * 64.0 / stats.median_ns;
}

}  // namespace

double fraction_of_peak(const DevicePeaks& peaks, double gbytes_per_second, double gflops) {
  double fraction = 0;
  if (peaks.gbytes_per_second > 0) fraction = std::max(fraction, gbytes_per_second / peaks.gbytes_per_second);
  if (peaks.gflops > 0) fraction = std::max(fraction, gflops / peaks.gflops);
  return fraction;
}

DevicePeaks peaks_for(const DevicePeaks& device, std::span<const uint32_t> spirv) {
  const auto interface = reflect_spirv(spirv);
  if (!interface) return device;
  for (const std::string& capability : interface->capabilities)
    if (capability.rfind("CooperativeMatrix", 0) == 0) return DevicePeaks{device.device, device.gbytes_per_second, 0};
  return device;
}

std::optional<std::string> impossible_speed(double fraction, double gbytes_per_second, double gflops,
                                            const DevicePeaks& peaks) {
  if (!(fraction > kImpossibleFractionOfPeak)) return std::nullopt;
  char text[320];
  std::snprintf(text, sizeof text,
                "%.0f%% of the device's measured peaks (%.1f GB/s against %.1f, %.1f GFLOP/s against %.1f): "
                "faster than the device can be; does the kernel skip work, or do BYTES or FLOPS overstate it?",
                100 * fraction, gbytes_per_second, peaks.gbytes_per_second, gflops, peaks.gflops);
  return std::string(text);
}

std::string peaks_key(const DeviceInfo& device) {
  return device.name + " | " + device.driver + " | Vulkan " + std::to_string(device.api_version >> 22) + "." +
         std::to_string((device.api_version >> 12) & 0x3ff) + "." + std::to_string(device.api_version & 0xfff);
}

DevicePeaks measure_device_peaks(Device& device) {
  const bool cpu = device.info().type == "cpu";
  DevicePeaks peaks;
  peaks.device = peaks_key(device.info());
  peaks.gbytes_per_second = copy_gbytes_per_second(device, cpu);
  peaks.gflops = fma_gflops(device, cpu);
  return peaks;
}

namespace {

// The cache file's object, keyed by peaks_key; empty when the file is missing or damaged (then measured
// again).
nlohmann::json read_cache(const std::filesystem::path& cache_file) {
  std::error_code error;
  if (!std::filesystem::exists(cache_file, error)) return nlohmann::json::object();
  try {
    nlohmann::json cache = nlohmann::json::parse(read_file(cache_file));
    return cache.is_object() ? cache : nlohmann::json::object();
  } catch (const std::exception&) {
    return nlohmann::json::object();
  }
}

// An entry's peaks; nullopt for a damaged one (a field that is not a number, no bandwidth), which is measured
// again like a damaged file (json::value would throw for it, and the peaks would be left out instead).
std::optional<DevicePeaks> entry_peaks(const std::string& key, const nlohmann::json& entry) {
  const auto number = [&](const char* field) {
    return entry.is_object() && entry.contains(field) && entry[field].is_number() ? entry[field].get<double>()
                                                                                  : 0.0;
  };
  if (number("gbytes_per_second") <= 0) return std::nullopt;
  return DevicePeaks{key, number("gbytes_per_second"), number("gflops")};
}

}  // namespace

std::vector<DevicePeaks> read_device_peaks(const std::filesystem::path& cache_file) {
  std::vector<DevicePeaks> all;
  const nlohmann::json cache = read_cache(cache_file);
  for (const auto& [key, entry] : cache.items())
    if (auto peaks = entry_peaks(key, entry)) all.push_back(*peaks);
  return all;
}

std::optional<DevicePeaks> cached_device_peaks(const DeviceInfo& info, const std::filesystem::path& cache_file) {
  try {
    const std::string key = peaks_key(info);
    nlohmann::json cache = read_cache(cache_file);
    if (cache.contains(key))
      if (auto peaks = entry_peaks(key, cache[key])) return peaks;
    std::fprintf(stderr, "kernelgen: measuring the peaks of %s (once per device and driver)\n", info.name.c_str());
    Device device(DeviceOptions{.selector = std::to_string(info.index)});
    const DevicePeaks peaks = measure_device_peaks(device);
    cache[key] = {{"gbytes_per_second", peaks.gbytes_per_second}, {"gflops", peaks.gflops}};
    std::filesystem::create_directories(cache_file.parent_path());
    write_file_atomic(cache_file, cache.dump(2) + "\n");
    std::fprintf(stderr, "kernelgen: %s: copy %.1f GB/s, FMA %.1f GFLOP/s\n", info.name.c_str(),
                 peaks.gbytes_per_second, peaks.gflops);
    return peaks;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kernelgen: warning: the device's peaks could not be measured (%s); reports leave out %% of peak\n",
                 error.what());
    return std::nullopt;
  }
}

}  // namespace kernelgen
