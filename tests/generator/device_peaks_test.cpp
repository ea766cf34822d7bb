// The device's roofline: fraction_of_peak, the cache key, the probes on the real device, and the cache file the
// search reads them from (measured once per device and driver).
#include "kernelgen/optimise/device_peaks.hpp"

#include <vulkan/vulkan_core.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

DevicePeaks peaks_of(double gbytes_per_second, double gflops) {
  DevicePeaks peaks;
  peaks.device = "test";
  peaks.gbytes_per_second = gbytes_per_second;
  peaks.gflops = gflops;
  return peaks;
}

// --- fraction_of_peak ----------------------------------------------------------------------------------------

TEST(FractionOfPeak, AMemoryBoundKernelIsMeasuredByItsBandwidth) {
  // 250 of 1000 GB/s, 1 of 100000 GFLOP/s.
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(1000, 100000), 250, 1), 0.25);
}

TEST(FractionOfPeak, AComputeBoundKernelIsMeasuredByItsFlopRate) {
  // 10 of 1000 GB/s, 30000 of 40000 GFLOP/s.
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(1000, 40000), 10, 30000), 0.75);
}

// The FMA probe measures f32 FMAs, not tensor cores: a kernel on cooperative matrices is bound by bandwidth alone
// (the checked-in matmul_f16 variant ran at 3.2 times the H100's FMA peak), any other by both.
TEST(PeaksFor, ACooperativeMatrixKernelIsBoundByBandwidthAlone) {
  const std::string source_dir = KERNELGEN_TEST_SOURCE_DIR;
  const Compilation tensor_cores =
      compile_glsl(read_file(source_dir + "/generated/matmul_f16/variants/coopmat/kernel.comp"));
  const Compilation plain = compile_glsl(read_file(source_dir + "/generated/relu/kernel.comp"));
  ASSERT_TRUE(tensor_cores.ok && plain.ok) << tensor_cores.log << plain.log;
  const DevicePeaks device = peaks_of(3000, 56000);
  EXPECT_EQ(peaks_for(device, tensor_cores.spirv).gflops, 0);
  EXPECT_EQ(peaks_for(device, tensor_cores.spirv).gbytes_per_second, 3000);
  EXPECT_EQ(peaks_for(device, plain.spirv).gflops, 56000);
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_for(device, tensor_cores.spirv), 150, 180000), 0.05);
}

TEST(FractionOfPeak, TheLargerFractionWins) {
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(100, 100), 60, 40), 0.6);
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(100, 100), 40, 60), 0.6);
}

TEST(FractionOfPeak, AZeroPeakIsLeftOutRatherThanDividedBy) {
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(0, 200), 50, 50), 0.25);
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(200, 0), 50, 50), 0.25);
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(0, 0), 50, 50), 0.0);
}

TEST(FractionOfPeak, AnIdleKernelIsAtZero) {
  EXPECT_DOUBLE_EQ(fraction_of_peak(peaks_of(1000, 1000), 0, 0), 0.0);
}

// --- peaks_key ----------------------------------------------------------------------------------------------

TEST(PeaksKey, NamesTheDeviceTheDriverAndTheVulkanVersion) {
  DeviceInfo info;
  info.name = "llvmpipe (LLVM 15.0.7, 256 bits)";
  info.driver = "Mesa 23.2.1";
  info.api_version = VK_MAKE_API_VERSION(0, 1, 3, 255);
  EXPECT_EQ(peaks_key(info), "llvmpipe (LLVM 15.0.7, 256 bits) | Mesa 23.2.1 | Vulkan 1.3.255");
  DeviceInfo newer = info;
  newer.driver = "Mesa 24.0.0";
  EXPECT_NE(peaks_key(newer), peaks_key(info)) << "a new driver is measured again";
}

// --- measure_device_peaks ------------------------------------------------------------------------------------

TEST(MeasureDevicePeaks, GivesPositiveBandwidthAndFlopRateOnThisDevice) {
  Device device;
  const DevicePeaks peaks = measure_device_peaks(device);
  EXPECT_EQ(peaks.device, peaks_key(device.info()));
  EXPECT_GT(peaks.gbytes_per_second, 0);
  EXPECT_GT(peaks.gflops, 0);
  // Sane: no device copies a petabyte per second or does an exaflop of f32.
  EXPECT_LT(peaks.gbytes_per_second, 1e6);
  EXPECT_LT(peaks.gflops, 1e9);
}

// --- cached_device_peaks -------------------------------------------------------------------------------------

class PeaksCache : public ::testing::Test {
 protected:
  const std::string key = peaks_key(Device::describe_selected());
  test::ScratchDir dir;
  const fs::path cache = dir.path() / "peaks.json";

  // cached_device_peaks(Device::describe_selected(), path), and whether it said it was measuring.
  std::optional<DevicePeaks> read(const fs::path& path, bool& measured) {
    ::testing::internal::CaptureStderr();
    std::optional<DevicePeaks> peaks = cached_device_peaks(Device::describe_selected(), path);
    const std::string said = ::testing::internal::GetCapturedStderr();
    measured = said.find("measuring the peaks") != std::string::npos;
    EXPECT_THAT(said, Not(HasSubstr("could not be measured"))) << said;
    return peaks;
  }

  static json file_json(const fs::path& path) { return json::parse(read_file(path)); }
};

TEST_F(PeaksCache, AnEntryForThisDeviceIsReturnedWithoutMeasuring) {
  const std::string text = json{{key, {{"gbytes_per_second", 1234.5}, {"gflops", 6789.25}}}}.dump(2) + "\n";
  write_file_atomic(cache, text);
  bool measured = true;
  const std::optional<DevicePeaks> peaks = read(cache, measured);
  ASSERT_TRUE(peaks.has_value());
  EXPECT_FALSE(measured);
  EXPECT_EQ(peaks->device, key);
  EXPECT_EQ(peaks->gbytes_per_second, 1234.5);
  EXPECT_EQ(peaks->gflops, 6789.25);
  EXPECT_EQ(read_file(cache), text) << "a cache hit does not rewrite the file";
}

TEST_F(PeaksCache, WithoutAFileThePeaksAreMeasuredAndWritten) {
  const fs::path nested = dir.path() / "not" / "yet" / "peaks.json";
  bool measured = false;
  const std::optional<DevicePeaks> peaks = read(nested, measured);
  ASSERT_TRUE(peaks.has_value());
  EXPECT_TRUE(measured);
  EXPECT_EQ(peaks->device, key);
  EXPECT_GT(peaks->gbytes_per_second, 0);
  EXPECT_GT(peaks->gflops, 0);

  ASSERT_TRUE(fs::exists(nested));
  const json written = file_json(nested);
  ASSERT_TRUE(written.contains(key)) << written.dump(2);
  EXPECT_EQ(written[key]["gbytes_per_second"].get<double>(), peaks->gbytes_per_second);
  EXPECT_EQ(written[key]["gflops"].get<double>(), peaks->gflops);

  // And the next call reads them back instead of measuring.
  const std::optional<DevicePeaks> again = read(nested, measured);
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(measured);
  EXPECT_EQ(again->gbytes_per_second, peaks->gbytes_per_second);
  EXPECT_EQ(again->gflops, peaks->gflops);
}

TEST_F(PeaksCache, ADamagedFileIsMeasuredAgainAndRewritten) {
  write_file_atomic(cache, "{\"truncated\": ");
  bool measured = false;
  const std::optional<DevicePeaks> peaks = read(cache, measured);
  ASSERT_TRUE(peaks.has_value());
  EXPECT_TRUE(measured);
  EXPECT_GT(peaks->gbytes_per_second, 0);
  const json written = file_json(cache);  // throws if still damaged
  EXPECT_TRUE(written.is_object());
  EXPECT_TRUE(written.contains(key));
  EXPECT_FALSE(written.contains("truncated"));
}

TEST_F(PeaksCache, AFileThatIsNotAnObjectIsReplaced) {
  write_file_atomic(cache, "[1, 2, 3]\n");
  bool measured = false;
  ASSERT_TRUE(read(cache, measured).has_value());
  EXPECT_TRUE(measured);
  const json written = file_json(cache);
  EXPECT_TRUE(written.is_object());
  EXPECT_TRUE(written.contains(key));
}

TEST_F(PeaksCache, AnotherDevicesEntryIsKeptWhenThisOnesIsAdded) {
  const std::string other = "Some Other GPU | Driver 9.9 | Vulkan 1.3.0";
  write_file_atomic(cache, json{{other, {{"gbytes_per_second", 3000.0}, {"gflops", 50000.0}}}}.dump(2));
  bool measured = false;
  const std::optional<DevicePeaks> peaks = read(cache, measured);
  ASSERT_TRUE(peaks.has_value());
  EXPECT_TRUE(measured);
  EXPECT_NE(peaks->gbytes_per_second, 3000.0) << "another device's peaks are not this one's";
  const json written = file_json(cache);
  ASSERT_TRUE(written.contains(other)) << written.dump(2);
  EXPECT_EQ(written[other]["gbytes_per_second"].get<double>(), 3000.0);
  EXPECT_EQ(written[other]["gflops"].get<double>(), 50000.0);
  ASSERT_TRUE(written.contains(key)) << written.dump(2);
  EXPECT_EQ(written[key]["gbytes_per_second"].get<double>(), peaks->gbytes_per_second);
}

TEST_F(PeaksCache, AnEntryWithoutABandwidthIsMeasuredAgain) {
  write_file_atomic(cache, json{{key, {{"gbytes_per_second", 0.0}, {"gflops", 6789.25}}}}.dump(2));
  bool measured = false;
  const std::optional<DevicePeaks> peaks = read(cache, measured);
  ASSERT_TRUE(peaks.has_value());
  EXPECT_TRUE(measured);
  EXPECT_GT(peaks->gbytes_per_second, 0);
  EXPECT_GT(file_json(cache)[key]["gbytes_per_second"].get<double>(), 0);
}

TEST_F(PeaksCache, AnEntryWithNonNumericValuesIsMeasuredAgain) {
  write_file_atomic(cache, json{{key, {{"gbytes_per_second", "fast"}, {"gflops", 6789.25}}}}.dump(2));
  bool measured = false;
  const std::optional<DevicePeaks> peaks = read(cache, measured);
  ASSERT_TRUE(peaks.has_value()) << "a damaged entry is measured again, like a damaged file";
  EXPECT_TRUE(measured);
  EXPECT_GT(file_json(cache)[key]["gbytes_per_second"].get<double>(), 0);
}

}  // namespace
}  // namespace kernelgen
