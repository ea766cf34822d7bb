#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kernelgen {

class Device;
struct DeviceInfo;

// What the device can do at best, measured by kernelgen's own probe kernels: the ceilings of its roofline.
struct DevicePeaks {
  std::string device;  // the device and driver they were measured on (peaks_key)
  double gbytes_per_second = 0;  // a large buffer copied with vec4 loads and stores: bytes read + written per ns
  double gflops = 0;             // independent f32 FMA chains in registers: 2 FLOP per FMA
};

// A kernel's fraction of the roofline: the larger of its bandwidth over the peak bandwidth and its FLOP rate
// over the peak FLOP rate.
double fraction_of_peak(const DevicePeaks& peaks, double gbytes_per_second, double gflops);

// The peaks that bound a kernel: the device's, less the FLOP rate for one that multiplies on cooperative
// matrices (tensor cores), which the FMA probe does not measure; its bandwidth still bounds it.
DevicePeaks peaks_for(const DevicePeaks& device, std::span<const uint32_t> spirv);

// Above this fraction of the measured peaks a timing is not believed: the kernel may skip work the timed
// output's check did not catch, or the op's BYTES or FLOPS overstate what it does. The search logs a warning
// and `kernelgen report` marks the op.
constexpr double kImpossibleFractionOfPeak = 1.1;

// The warning for a timing at `fraction` of the peaks (fraction_of_peak), or nullopt at or below
// kImpossibleFractionOfPeak.
std::optional<std::string> impossible_speed(double fraction, double gbytes_per_second, double gflops,
                                            const DevicePeaks& peaks);

// The cache key: device name, driver and its version, Vulkan version. A new driver is measured again.
std::string peaks_key(const DeviceInfo& device);

// Runs the probes on `device` through the timing harness (less than a second on lavapipe, milliseconds on a
// GPU).
DevicePeaks measure_device_peaks(Device& device);

// Every device's peaks in `cache_file` (`<candidate log>/device_peaks.json`, a JSON object keyed by
// peaks_key), as the build steps measured them; none when the file is missing or damaged. Measures nothing.
std::vector<DevicePeaks> read_device_peaks(const std::filesystem::path& cache_file);

// The peaks of `device` from `cache_file`, a JSON object keyed by peaks_key; measured (on that device) and added
// to the file when missing. nullopt, with a warning on stderr, when they cannot be measured: reports then leave
// % of peak out.
std::optional<DevicePeaks> cached_device_peaks(const DeviceInfo& device, const std::filesystem::path& cache_file);

}  // namespace kernelgen
