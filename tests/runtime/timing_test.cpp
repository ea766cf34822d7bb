// The timing harness: order statistics of samples, the noise rule the search keeps kernels by, the cache flush
// between runs (and its KERNELGEN_TIMING_FLUSH_MB override), and DispatchTimer on the real device.
#include "kernelgen/timing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "scoped_env.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// --- summarize_samples -------------------------------------------------------------------------------------

TEST(SummarizeSamples, OddCountGivesTheMiddleSampleAndInterpolatedQuartiles) {
  // Sorted: 1 2 3 4 5. Quartile positions 0.25 * 4 = 1 and 0.75 * 4 = 3 fall on samples.
  const TimingStats stats = summarize_samples({5, 1, 4, 2, 3});
  EXPECT_EQ(stats.runs, 5);
  EXPECT_DOUBLE_EQ(stats.min_ns, 1);
  EXPECT_DOUBLE_EQ(stats.max_ns, 5);
  EXPECT_DOUBLE_EQ(stats.median_ns, 3);
  EXPECT_DOUBLE_EQ(stats.p25_ns, 2);
  EXPECT_DOUBLE_EQ(stats.p75_ns, 4);
  EXPECT_DOUBLE_EQ(stats.spread_ns(), 2);
}

TEST(SummarizeSamples, EvenCountInterpolatesBetweenTheMiddleSamples) {
  // Sorted: 10 20 30 40. Median at position 1.5: 25; p25 at 0.75: 17.5; p75 at 2.25: 32.5.
  const TimingStats stats = summarize_samples({40, 10, 30, 20});
  EXPECT_EQ(stats.runs, 4);
  EXPECT_DOUBLE_EQ(stats.min_ns, 10);
  EXPECT_DOUBLE_EQ(stats.max_ns, 40);
  EXPECT_DOUBLE_EQ(stats.median_ns, 25);
  EXPECT_DOUBLE_EQ(stats.p25_ns, 17.5);
  EXPECT_DOUBLE_EQ(stats.p75_ns, 32.5);
  EXPECT_DOUBLE_EQ(stats.spread_ns(), 15);
}

TEST(SummarizeSamples, TwoSamplesGiveTheirMeanAsMedian) {
  const TimingStats stats = summarize_samples({300, 100});
  EXPECT_DOUBLE_EQ(stats.median_ns, 200);
  EXPECT_DOUBLE_EQ(stats.p25_ns, 150);
  EXPECT_DOUBLE_EQ(stats.p75_ns, 250);
  EXPECT_DOUBLE_EQ(stats.min_ns, 100);
  EXPECT_DOUBLE_EQ(stats.max_ns, 300);
}

TEST(SummarizeSamples, AnOutlierMovesTheMaximumButNotTheMedian) {
  const TimingStats stats = summarize_samples({100, 101, 99, 100, 5000, 100, 98});
  EXPECT_DOUBLE_EQ(stats.median_ns, 100);
  EXPECT_DOUBLE_EQ(stats.max_ns, 5000);
  EXPECT_DOUBLE_EQ(stats.min_ns, 98);
  // Sorted: 98 99 100 100 100 101 5000; positions 1.5 and 4.5.
  EXPECT_DOUBLE_EQ(stats.p25_ns, 99.5);
  EXPECT_DOUBLE_EQ(stats.p75_ns, 100.5);
}

TEST(SummarizeSamples, OneSampleIsEveryStatisticWithNoSpread) {
  const TimingStats stats = summarize_samples({42.5});
  EXPECT_EQ(stats.runs, 1);
  EXPECT_DOUBLE_EQ(stats.min_ns, 42.5);
  EXPECT_DOUBLE_EQ(stats.max_ns, 42.5);
  EXPECT_DOUBLE_EQ(stats.median_ns, 42.5);
  EXPECT_DOUBLE_EQ(stats.p25_ns, 42.5);
  EXPECT_DOUBLE_EQ(stats.p75_ns, 42.5);
  EXPECT_DOUBLE_EQ(stats.spread_ns(), 0);
}

TEST(SummarizeSamples, NoSamplesThrows) {
  EXPECT_THROW(summarize_samples({}), std::invalid_argument);
}

// --- faster_beyond_noise -----------------------------------------------------------------------------------

TimingStats stats_of(double median, double p25, double p75) {
  TimingStats stats;
  stats.runs = 31;
  stats.median_ns = median;
  stats.min_ns = p25;
  stats.max_ns = p75;
  stats.p25_ns = p25;
  stats.p75_ns = p75;
  return stats;
}

TEST(FasterBeyondNoise, ClearlyFasterBeatsBothSpreads) {
  const TimingStats baseline = stats_of(100, 98, 102);   // spread 4
  const TimingStats candidate = stats_of(50, 49, 51);    // spread 2
  EXPECT_TRUE(faster_beyond_noise(candidate, baseline));
}

TEST(FasterBeyondNoise, FasterButWithinTheCandidatesSpreadIsNot) {
  const TimingStats baseline = stats_of(100, 99, 101);   // spread 2
  const TimingStats candidate = stats_of(90, 80, 100);   // spread 20 > the 10 gained
  EXPECT_FALSE(faster_beyond_noise(candidate, baseline));
}

TEST(FasterBeyondNoise, FasterButWithinTheBaselinesSpreadIsNot) {
  const TimingStats baseline = stats_of(100, 85, 115);   // spread 30 > the 10 gained
  const TimingStats candidate = stats_of(90, 89, 91);    // spread 2
  EXPECT_FALSE(faster_beyond_noise(candidate, baseline));
}

TEST(FasterBeyondNoise, AGainOfExactlyTheSpreadIsNotEnough) {
  const TimingStats baseline = stats_of(100, 95, 105);   // spread 10
  const TimingStats candidate = stats_of(90, 88, 92);    // gains exactly 10
  EXPECT_FALSE(faster_beyond_noise(candidate, baseline));
  EXPECT_TRUE(faster_beyond_noise(stats_of(89.5, 88, 92), baseline));
}

TEST(FasterBeyondNoise, AGainBelowTheMinimumFractionIsNotEnoughEvenWithoutSpread) {
  // Separate measurements drift by more than one measurement's spread: a gain must also beat kMinimumGain.
  const auto steady = [](double median) { return stats_of(median, median, median); };
  const TimingStats baseline = steady(1000);
  EXPECT_FALSE(faster_beyond_noise(steady(1000 * (1 - 0.5 * kMinimumGain)), baseline)) << "half the minimum";
  EXPECT_FALSE(faster_beyond_noise(steady(1000 * (1 - 0.9 * kMinimumGain)), baseline)) << "just under it";
  EXPECT_TRUE(faster_beyond_noise(steady(1000 * (1 - 1.1 * kMinimumGain)), baseline)) << "just over it";
}

TEST(FasterBeyondNoise, SlowerIsNeverFaster) {
  const TimingStats fast = stats_of(50, 50, 50);
  const TimingStats slow = stats_of(100, 100, 100);
  EXPECT_FALSE(faster_beyond_noise(slow, fast));
  EXPECT_TRUE(faster_beyond_noise(fast, slow));
}

TEST(FasterBeyondNoise, EqualTimesAreNotFasterEvenWithoutSpread) {
  const TimingStats same = stats_of(100, 100, 100);
  EXPECT_FALSE(faster_beyond_noise(same, same));
  const TimingStats noisy = stats_of(100, 90, 110);
  EXPECT_FALSE(faster_beyond_noise(noisy, noisy));
}

// --- default_flush_bytes -----------------------------------------------------------------------------------

DeviceInfo device_of_type(const std::string& type) {
  DeviceInfo info;
  info.name = "test device";
  info.type = type;
  return info;
}

TEST(DefaultFlushBytes, NoneOnACpuDevice) {
  const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH_MB", nullptr);
  EXPECT_EQ(default_flush_bytes(device_of_type("cpu")), 0u);
}

TEST(DefaultFlushBytes, QuarterGibibyteOnAGpu) {
  const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH_MB", nullptr);
  EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 256 * kMiB);
  EXPECT_EQ(default_flush_bytes(device_of_type("integrated")), 256 * kMiB);
}

TEST(DefaultFlushBytes, TheEnvironmentOverridesItInMebibytes) {
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "3");
    EXPECT_EQ(default_flush_bytes(device_of_type("cpu")), 3 * kMiB);
    EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 3 * kMiB);
  }
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "0");
    EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 0u) << "0: no flush, even on a GPU";
  }
}

TEST(DefaultFlushBytes, AnEmptySettingIsTheDefault) {
  const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "");
  EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 256 * kMiB);
  EXPECT_EQ(default_flush_bytes(device_of_type("cpu")), 0u);
}

TEST(DefaultFlushBytes, TheEnvironmentIsRestoredAfterAnOverride) {
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "7");
    EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 7 * kMiB);
  }
  const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH_MB", nullptr);
  EXPECT_EQ(default_flush_bytes(device_of_type("discrete")), 256 * kMiB);
}

std::string flush_setting_error(const char* value) {
  const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", value);
  try {
    const std::size_t bytes = default_flush_bytes(device_of_type("discrete"));
    return "(accepted: " + std::to_string(bytes) + " bytes)";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

TEST(DefaultFlushBytes, AMalformedSettingThrowsNamingIt) {
  EXPECT_THAT(flush_setting_error("lots"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=lots is not a whole number of MiB"));
  EXPECT_THAT(flush_setting_error("12MB"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=12MB"));
  EXPECT_THAT(flush_setting_error("1.5"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=1.5"));
}

TEST(DefaultFlushBytes, ANegativeOrOverflowingSettingThrows) {
  // strtoull reads "-1" as ULLONG_MAX; shifted by 20 that would be a flush of ~16 EiB.
  EXPECT_THAT(flush_setting_error("-1"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=-1"));
  EXPECT_THAT(flush_setting_error("99999999999999999999999"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=9999"));
  // Fits in 64 bits, but not once multiplied by 2^20.
  EXPECT_THAT(flush_setting_error("18446744073709551"), HasSubstr("KERNELGEN_TIMING_FLUSH_MB=18446744073709551"));
}

// --- Sequence::barrier ---------------------------------------------------------------------------------------

constexpr std::size_t kTimingCount = 1000;
constexpr Grid kTimingGrid{(kTimingCount + 63) / 64, 1, 1};

class BarrierTest : public ::testing::Test {
 protected:
  Device device;
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};
  Buffer a{device, kTimingCount * 4}, b{device, kTimingCount * 4}, c{device, kTimingCount * 4},
      d{device, kTimingCount * 4};

  void upload(Buffer& buffer, float value) {
    buffer.upload(std::span<const float>(std::vector<float>(kTimingCount, value)));
  }
};

TEST_F(BarrierTest, IndependentDispatchesNeedNoBarrierUntilOneIsAsked) {
  Sequence without(device);
  without.dispatch(add_one, {&a, &b}, kTimingGrid).dispatch(add_one, {&c, &d}, kTimingGrid);
  EXPECT_EQ(without.barrier_count(), 0u);

  Sequence with(device);
  with.dispatch(add_one, {&a, &b}, kTimingGrid).barrier();
  EXPECT_EQ(with.barrier_count(), 1u);
  with.dispatch(add_one, {&c, &d}, kTimingGrid);
  EXPECT_EQ(with.barrier_count(), 1u);
  with.barrier().barrier();
  EXPECT_EQ(with.barrier_count(), 3u);
}

TEST_F(BarrierTest, AnExplicitBarrierSatisfiesTheNextConflictingDispatch) {
  upload(a, 1.0f);
  Sequence sequence(device);
  sequence.dispatch(add_one, {&a, &b}, kTimingGrid).barrier().dispatch(add_one, {&b, &c}, kTimingGrid);
  // b written then read: ordered already by the explicit barrier, so no second one.
  EXPECT_EQ(sequence.barrier_count(), 1u);
  sequence.run();
  EXPECT_EQ(c.download<float>(), std::vector<float>(kTimingCount, 3.0f));
}

TEST_F(BarrierTest, ABarrierOrdersAFillBeforeTheDispatchAfterIt) {
  upload(a, 0.0f);
  Sequence sequence(device);
  sequence.fill(a, std::bit_cast<uint32_t>(6.0f)).barrier().dispatch(add_one, {&a, &b}, kTimingGrid).run();
  EXPECT_EQ(b.download<float>(), std::vector<float>(kTimingCount, 7.0f));
}

// --- DispatchTimer -------------------------------------------------------------------------------------------

// x[i] += 1 in place: the buffer counts how many times the kernel ran.
const std::string kIncrement = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer X { float x[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < x.length()) x[i] += 1.0;
}
)";

constexpr std::size_t kTimedCount = std::size_t{1} << 16;
constexpr Grid kTimedGrid{kTimedCount / 64, 1, 1};

class DispatchTimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (device.info().timestamp_period_ns == 0) GTEST_SKIP() << device.info().name << " has no timestamps";
  }

  Device device;
  Kernel add_one{device, test::spirv_of(test::kAddOne), 2};
  Kernel increment{device, test::spirv_of(kIncrement), 1};
  Buffer in{device, kTimedCount * 4}, out{device, kTimedCount * 4}, counter{device, kTimedCount * 4};

  std::function<void(Sequence&)> add_one_work() {
    return [this](Sequence& s) { s.dispatch(add_one, {&in, &out}, kTimedGrid); };
  }
  std::function<void(Sequence&)> increment_work() {
    return [this](Sequence& s) { s.dispatch(increment, {&counter}, kTimedGrid); };
  }

  static TimingOptions quick(int runs) {
    TimingOptions options;
    options.runs = runs;
    options.warmup_runs = 1;
    options.warmup_seconds = 0;
    options.flush_bytes = 0;
    return options;
  }

  static void expect_ordered(const TimingStats& stats) {
    EXPECT_GT(stats.median_ns, 0);
    EXPECT_GT(stats.min_ns, 0);
    EXPECT_LE(stats.min_ns, stats.p25_ns);
    EXPECT_LE(stats.p25_ns, stats.median_ns);
    EXPECT_LE(stats.median_ns, stats.p75_ns);
    EXPECT_LE(stats.p75_ns, stats.max_ns);
  }

  // Times y = x + 1 with `options`' flush, which must report `flush_bytes` and leave the kernel's input as it was
  // and its output right.
  void expect_flushed_runs_correct(const TimingOptions& options, std::size_t flush_bytes) {
    std::vector<float> values(kTimedCount);
    for (std::size_t i = 0; i < kTimedCount; ++i) values[i] = static_cast<float>(i % 1000) - 500.0f;
    in.upload(std::span<const float>(values));
    out.upload(std::span<const float>(std::vector<float>(kTimedCount, -1.0e6f)));
    DispatchTimer timer(device, add_one_work(), options);
    EXPECT_EQ(timer.flush_bytes(), flush_bytes);
    const TimingStats stats = timer.measure();
    EXPECT_EQ(stats.runs, options.runs);
    expect_ordered(stats);
    std::vector<float> expected = values;
    for (float& value : expected) value += 1.0f;
    EXPECT_EQ(out.download<float>(), expected);
    EXPECT_EQ(in.download<float>(), values) << "the flush wrote into the kernel's input";
  }
};

TEST_F(DispatchTimerTest, MeasuresTheRequestedNumberOfRunsInOrder) {
  for (int runs : {1, 5, 12}) {
    DispatchTimer timer(device, add_one_work(), quick(runs));
    const TimingStats stats = timer.measure();
    EXPECT_EQ(stats.runs, runs);
    expect_ordered(stats);
  }
}

TEST_F(DispatchTimerTest, MeasureMayBeCalledAgainAndOnlyTheFirstWarmsUp) {
  counter.upload(std::span<const float>(std::vector<float>(kTimedCount, 0.0f)));
  TimingOptions options = quick(5);
  options.warmup_runs = 2;  // a submission holds 2 + 5 runs
  DispatchTimer timer(device, increment_work(), options);
  EXPECT_EQ(counter.download<float>()[0], 0.0f) << "constructing the timer runs nothing";

  const TimingStats first = timer.measure();
  EXPECT_EQ(first.runs, 5);
  expect_ordered(first);
  // warmup_seconds = 0: one warm-up submission, then the measured one.
  EXPECT_EQ(counter.download<float>(), std::vector<float>(kTimedCount, 14.0f));

  const TimingStats second = timer.measure();
  EXPECT_EQ(second.runs, 5);
  expect_ordered(second);
  EXPECT_EQ(counter.download<float>(), std::vector<float>(kTimedCount, 21.0f)) << "no second warm-up";
}

TEST_F(DispatchTimerTest, AnExplicitFlushIsReportedAndLeavesTheKernelsOutputCorrect) {
  TimingOptions options = quick(4);
  options.flush_bytes = kMiB;
  expect_flushed_runs_correct(options, kMiB);
}

// A read flush copies its bytes a piece at a time onto one sink, and leaves the timed kernel's buffers alone; its
// size is whole pieces.
TEST_F(DispatchTimerTest, AReadFlushIsReportedAndLeavesTheKernelsOutputCorrect) {
  TimingOptions options = quick(3);
  options.flush_bytes = kMiB + 1;
  options.flush_kind = FlushKind::read;
  EXPECT_EQ(DispatchTimer(device, add_one_work(), options).flush_kind(), FlushKind::read);
  expect_flushed_runs_correct(options, 2 * kReadFlushPiece);
}

TEST_F(DispatchTimerTest, TheFlushKindDefaultsToWritingAndKernelgenTimingFlushSaysOtherwise) {
  TimingOptions options = quick(1);
  {
    const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH", nullptr);
    EXPECT_EQ(default_flush_kind(), FlushKind::write);
    EXPECT_EQ(DispatchTimer(device, add_one_work(), options).flush_kind(), FlushKind::write);
  }
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH", "read");
    EXPECT_EQ(default_flush_kind(), FlushKind::read);
    EXPECT_EQ(DispatchTimer(device, add_one_work(), options).flush_kind(), FlushKind::read);
    options.flush_kind = FlushKind::write;
    EXPECT_EQ(DispatchTimer(device, add_one_work(), options).flush_kind(), FlushKind::write)
        << "an explicit flush_kind wins over the environment";
  }
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH", "write");
    EXPECT_EQ(default_flush_kind(), FlushKind::write);
  }
  const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH", "clean");
  EXPECT_THAT([] { default_flush_kind(); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr(
                  "KERNELGEN_TIMING_FLUSH=clean is neither write")));
  EXPECT_STREQ(flush_kind_name(FlushKind::read), "read");
  EXPECT_STREQ(flush_kind_name(FlushKind::write), "write");
}

TEST_F(DispatchTimerTest, TheFlushDefaultsToTheDevicesAndTheEnvironmentsSetting) {
  TimingOptions options = quick(2);
  options.flush_bytes.reset();
  {
    const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH_MB", nullptr);
    const DispatchTimer timer(device, add_one_work(), options);
    EXPECT_EQ(timer.flush_bytes(), default_flush_bytes(device.info()));
    if (device.info().type == "cpu") {
      EXPECT_EQ(timer.flush_bytes(), 0u);
    }
  }
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "2");
    DispatchTimer timer(device, add_one_work(), options);
    EXPECT_EQ(timer.flush_bytes(), 2 * kMiB);
    EXPECT_EQ(timer.measure().runs, 2);
  }
  {
    const test::ScopedEnv env("KERNELGEN_TIMING_FLUSH_MB", "2");
    options.flush_bytes = 0;
    const DispatchTimer timer(device, add_one_work(), options);
    EXPECT_EQ(timer.flush_bytes(), 0u) << "an explicit flush_bytes wins over the environment";
  }
}

// y = x + 1, done by one invocation, which skips the work where y already holds it (as a kernel that leaves a
// tile alone when its output looks computed) and otherwise counts it in `work`, a side channel no reset touches.
const std::string kSkipsWhatIsDone = R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) buffer Y { float y[]; };
layout(set = 0, binding = 2, std430) buffer Work { uint work[]; };
void main() {
  if (y[0] == x[0] + 1.0) return;
  work[0] += 1u;
  for (uint i = 0u; i < y.length(); ++i) y[i] = x[i] + 1.0;
}
)";

// Two sets of inputs, outputs and work counters, one poisoned buffer their outputs are reset to: every run of
// every submission did the work, on its own set's inputs, runs alternating between the sets. Reused outputs let
// the kernel do it once.
TEST_F(DispatchTimerTest, EveryRunStartsFromResetOutputsAndTheRunsAlternateBetweenTheSets) {
  constexpr std::size_t kCount = 100;
  Kernel skips(device, test::spirv_of(kSkipsWhatIsDone), 3);
  std::vector<Buffer> x, y, work;
  for (int set = 0; set < 2; ++set) {
    x.emplace_back(device, kCount * 4);
    x.back().upload(std::span<const float>(std::vector<float>(kCount, 10.0f * static_cast<float>(set + 1))));
    y.emplace_back(device, kCount * 4);
    work.emplace_back(device, 4);
    work.back().upload(std::span<const uint32_t>(std::vector<uint32_t>{0}));
  }
  Buffer poison(device, kCount * 4);
  poison.upload(std::span<const float>(std::vector<float>(kCount, -7.0f)));
  std::vector<TimedBindings> sets;
  for (std::size_t set = 0; set < 2; ++set)
    sets.push_back({{&x[set], &y[set], &work[set]}, {{&poison, &y[set]}}});
  TimingOptions options = quick(5);
  options.warmup_runs = 2;  // runs 0..6 a submission: set 0 runs 0, 2, 4 and 6, set 1 runs 1, 3 and 5
  DispatchTimer timer(device, sets, [&](Sequence& sequence, const std::vector<const Buffer*>& bound) {
    sequence.dispatch(skips, bound, {1, 1, 1});
  }, options);
  EXPECT_EQ(timer.measure().runs, 5);
  // warmup_seconds = 0: one warm-up submission, then the measured one.
  EXPECT_EQ(work[0].download<uint32_t>(), std::vector<uint32_t>{8});
  EXPECT_EQ(work[1].download<uint32_t>(), std::vector<uint32_t>{6});
  EXPECT_EQ(y[0].download<float>(), std::vector<float>(kCount, 11.0f));
  EXPECT_EQ(y[1].download<float>(), std::vector<float>(kCount, 21.0f));
  EXPECT_EQ(poison.download<float>(), std::vector<float>(kCount, -7.0f));

  // The same kernel timed on outputs left from run to run does the work once.
  work[0].upload(std::span<const uint32_t>(std::vector<uint32_t>{0}));
  y[0].upload(std::span<const float>(std::vector<float>(kCount, -7.0f)));
  time_dispatches(device, [&](Sequence& s) { s.dispatch(skips, {&x[0], &y[0], &work[0]}, {1, 1, 1}); }, options);
  EXPECT_EQ(work[0].download<uint32_t>(), std::vector<uint32_t>{1});
}

TEST_F(DispatchTimerTest, NoSetOfBuffersThrows) {
  EXPECT_THROW(DispatchTimer(device, {}, [](Sequence&, const std::vector<const Buffer*>&) {}, quick(1)),
               std::invalid_argument);
}

TEST_F(DispatchTimerTest, ZeroOrNegativeRunsThrow) {
  EXPECT_THROW(DispatchTimer(device, add_one_work(), quick(0)), std::invalid_argument);
  EXPECT_THROW(DispatchTimer(device, add_one_work(), quick(-3)), std::invalid_argument);
  EXPECT_THROW(time_dispatches(device, add_one_work(), quick(0)), std::invalid_argument);
}

TEST_F(DispatchTimerTest, TimeDispatchesMeasuresOnceWithTheDefaults) {
  in.upload(std::span<const float>(std::vector<float>(kTimedCount, 2.0f)));
  const test::ScopedEnv unset("KERNELGEN_TIMING_FLUSH_MB", nullptr);
  const TimingStats stats = time_dispatches(device, add_one_work());
  EXPECT_EQ(stats.runs, TimingOptions{}.runs);
  expect_ordered(stats);
  EXPECT_EQ(out.download<float>(), std::vector<float>(kTimedCount, 3.0f));
}

TEST_F(DispatchTimerTest, ALongerKernelMeasuresLonger) {
  // 64 dispatches of a kernel in one timed run against one of the same kernel: the same harness must see the
  // difference. (Against one dispatch of another kernel, add_one, an ASan run on lavapipe once timed the one
  // dispatch at 123 ms and the 64 at 47 ms.)
  const TimingStats one = time_dispatches(device, increment_work(), quick(7));
  const TimingStats many = time_dispatches(
      device, [this](Sequence& s) { for (int i = 0; i < 64; ++i) s.dispatch(increment, {&counter}, kTimedGrid); },
      quick(7));
  EXPECT_GT(many.median_ns, 4 * one.median_ns);
}

}  // namespace
}  // namespace kernelgen
