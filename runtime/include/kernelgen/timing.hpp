#pragma once
// The one timing harness: the search times candidates with it, `kernelgen validate --time` prints it, and every
// generated benchmark's GPU case measures with it, so the three agree (docs/timing.md).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kernelgen {

class Buffer;
class Device;
class Sequence;
struct DeviceInfo;

// Order statistics of repeated GPU times of one kernel.
struct TimingStats {
  int runs = 0;
  double median_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
  double p25_ns = 0;  // quartiles
  double p75_ns = 0;
  // The interquartile range: how far apart repeated runs of the same kernel land.
  double spread_ns() const { return p75_ns - p25_ns; }
};

// The statistics of these samples (nanoseconds). Throws std::invalid_argument when there are none.
TimingStats summarize_samples(std::vector<double> samples_ns);

// Separate measurements of one kernel drift by more than one measurement's spread (clocks, other work on a
// shared machine): eight separate timings of relu on an H100 spanned 1.6%, on lavapipe sharing two cores far
// more. A speed-up must also exceed this fraction of the baseline's median.
inline constexpr double kMinimumGain = 0.05;

// Whether `candidate` is faster than `baseline` beyond the noise: its median is lower by more than both
// spreads and more than kMinimumGain of the baseline's median. The search keeps a candidate over its parent, or
// over an earlier candidate, only when this holds, so two kernels that measure the same do not trade places
// from one run to the next.
bool faster_beyond_noise(const TimingStats& candidate, const TimingStats& baseline);

enum class FlushKind { write, read };

struct TimingOptions {
  int runs = 31;         // timed runs, each between its own pair of GPU timestamps
  int warmup_runs = 3;   // runs recorded before them in the same submission and discarded
  // Before the first measurement the whole submission is run until this much time has passed (at least once):
  // a GPU that idled runs at a fraction of its clock, and the first runs would time the clock ramp.
  double warmup_seconds = 0.2;
  // Bytes written between runs, so that a kernel whose working set fits the GPU's caches is timed reading memory
  // as a model's next call would, not its own previous run's cache lines. nullopt: default_flush_bytes().
  std::optional<std::size_t> flush_bytes;
  // How the flush evicts: by writing its bytes (the default), or by reading them, which leaves the cache holding
  // clean lines, as after a stage that only read its inputs (a decode step's previous projection). A written
  // flush leaves up to the cache's size of dirty lines, which the timed kernel's own reads then write back: a
  // kernel of a few tens of MB is timed paying for that write-back too. nullopt: default_flush_kind().
  std::optional<FlushKind> flush_kind;
  // Hold the device's timing lock while measuring (a file lock shared by every kernelgen process of this user),
  // so that build steps, tests and benchmarks never time each other.
  bool exclusive = true;
};

// 256 MiB on a GPU (several times the last-level cache of current GPUs; Triton's benchmark flushes as much), none
// on a CPU device such as lavapipe, where writing it for every run would dominate the time.
// KERNELGEN_TIMING_FLUSH_MB overrides it (0: no flush).
std::size_t default_flush_bytes(const DeviceInfo& device);
// FlushKind::write, or what KERNELGEN_TIMING_FLUSH says ("write" or "read"); another value throws
// std::invalid_argument naming the variable.
FlushKind default_flush_kind();
// "write" or "read".
const char* flush_kind_name(FlushKind kind);
// The bytes of the flush buffer a read flush copies at a time, all onto one buffer of this size: of what it
// reads, only this much stays in the cache as written lines.
inline constexpr std::size_t kReadFlushPiece = std::size_t{1} << 20;

// One set of the buffers a timed run binds, one per binding, and the outputs it must find reset: before every
// run on this set, each output gets a copy of its source (the poison), outside the timed interval.
struct TimedBindings {
  std::vector<const Buffer*> bound;
  struct Reset {
    const Buffer* source;
    const Buffer* output;
  };
  std::vector<Reset> resets;
};

// Records `runs` + `warmup_runs` runs of the work `record` puts into a Sequence, back to back in one
// submission, and measures them with GPU timestamps converted by the device's timestamp period. Before each
// run, outside its timestamps and behind a barrier: its set's outputs reset, and a cache flush when flushing.
// measure() may be called repeatedly (the benchmarks do); only the first warms up.
//
// Runs rotate through `sets`: run r (warm-up runs counted) binds sets[r % sets.size()]. With two or more sets of
// inputs, each with outputs of its own reset before its turn, no run finds its output already computed, or its
// inputs just read: a kernel that skips the work its output already holds is timed at the work's cost, or its
// output is wrong. After a measurement each set's outputs hold what its last run computed.
class DispatchTimer {
 public:
  using Record = std::function<void(Sequence&, const std::vector<const Buffer*>& bound)>;
  DispatchTimer(Device& device, std::vector<TimedBindings> sets, const Record& record, TimingOptions options = {});
  // Work that needs no rotation, as the device's peak probes: one set, nothing reset.
  DispatchTimer(Device& device, const std::function<void(Sequence&)>& record, TimingOptions options = {});
  ~DispatchTimer();
  DispatchTimer(const DispatchTimer&) = delete;
  DispatchTimer& operator=(const DispatchTimer&) = delete;

  TimingStats measure();
  std::size_t flush_bytes() const { return flush_bytes_; }
  FlushKind flush_kind() const { return flush_kind_; }

 private:
  Device& device_;
  TimingOptions options_;
  std::size_t flush_bytes_ = 0;
  FlushKind flush_kind_ = FlushKind::write;
  std::unique_ptr<Buffer> flush_;
  std::unique_ptr<Buffer> flush_sink_;  // where a read flush copies its pieces
  std::unique_ptr<Sequence> sequence_;
  bool warmed_up_ = false;
};

// One DispatchTimer, measured once.
TimingStats time_dispatches(Device& device, const std::function<void(Sequence&)>& record,
                            const TimingOptions& options = {});

}  // namespace kernelgen
