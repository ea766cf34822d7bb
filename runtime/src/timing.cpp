#include "kernelgen/timing.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernelgen/buffer.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/sequence.hpp"

namespace kernelgen {

namespace {

// The sample at quantile q, interpolating between neighbours (samples sorted).
double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - static_cast<double>(below));
}

// The device's timing lock: an exclusive flock on a file named after the device, released when destroyed.
// Where the file cannot be opened, timing goes on unlocked: the lock only keeps timings apart.
class TimingLock {
 public:
  explicit TimingLock(const DeviceInfo& device) {
    std::string name = "kernelgen-timing-" + std::to_string(::getuid()) + "-" + std::to_string(device.index) + "-";
    for (char c : device.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    std::error_code error;
    const auto directory = std::filesystem::temp_directory_path(error);
    if (error) return;
    fd_ = ::open((directory / (name + ".lock")).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~TimingLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  TimingLock(const TimingLock&) = delete;
  TimingLock& operator=(const TimingLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

TimingStats summarize_samples(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("kernelgen: no timing samples to summarize");
  std::sort(samples.begin(), samples.end());
  TimingStats stats;
  stats.runs = static_cast<int>(samples.size());
  stats.min_ns = samples.front();
  stats.max_ns = samples.back();
  stats.median_ns = quantile(samples, 0.5);
  stats.p25_ns = quantile(samples, 0.25);
  stats.p75_ns = quantile(samples, 0.75);
  return stats;
}

bool faster_beyond_noise(const TimingStats& candidate, const TimingStats& baseline) {
  const double noise = std::max({candidate.spread_ns(), baseline.spread_ns(), kMinimumGain * baseline.median_ns});
  return baseline.median_ns - candidate.median_ns > noise;
}

std::size_t default_flush_bytes(const DeviceInfo& device) {
  if (const char* setting = std::getenv("KERNELGEN_TIMING_FLUSH_MB"); setting && *setting) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long megabytes = std::strtoull(setting, &end, 10);
    // strtoull takes a sign ("-1" reads as ULLONG_MAX) and leading space; neither is a number of MiB, and a
    // number past 2^64 bytes would wrap.
    if (!std::isdigit(static_cast<unsigned char>(setting[0])) || *end != '\0' || errno == ERANGE ||
        megabytes > (std::numeric_limits<std::size_t>::max() >> 20))
      throw std::invalid_argument(std::string("kernelgen: KERNELGEN_TIMING_FLUSH_MB=") + setting +
                                  " is not a whole number of MiB (0: no flush)");
    return static_cast<std::size_t>(megabytes) << 20;
  }
  return device.type == "cpu" ? 0 : std::size_t{256} << 20;
}

FlushKind default_flush_kind() {
  const char* setting = std::getenv("KERNELGEN_TIMING_FLUSH");
  if (!setting || !*setting || std::string(setting) == "write") return FlushKind::write;
  if (std::string(setting) == "read") return FlushKind::read;
  throw std::invalid_argument(std::string("kernelgen: KERNELGEN_TIMING_FLUSH=") + setting +
                              " is neither write (the default: the flush writes its bytes) nor read (it reads them, "
                              "leaving the cache's lines clean)");
}

const char* flush_kind_name(FlushKind kind) { return kind == FlushKind::read ? "read" : "write"; }

DispatchTimer::DispatchTimer(Device& device, std::vector<TimedBindings> sets, const Record& record,
                             TimingOptions options)
    : device_(device), options_(options) {
  if (options_.runs < 1) throw std::invalid_argument("kernelgen: timing needs at least one run");
  if (sets.empty()) throw std::invalid_argument("kernelgen: timing needs at least one set of buffers");
  flush_bytes_ = options_.flush_bytes ? *options_.flush_bytes : default_flush_bytes(device.info());
  flush_kind_ = options_.flush_kind ? *options_.flush_kind : default_flush_kind();
  if (flush_kind_ == FlushKind::read)
    flush_bytes_ = (flush_bytes_ + kReadFlushPiece - 1) / kReadFlushPiece * kReadFlushPiece;
  // A read flush's buffer is never written: what it holds does not matter, only that reading it fills the cache
  // (on an H200 it leaves a decode GEMV timed as inside the decoder block: benchmarks/RESULTS.md, issue 40).
  if (flush_bytes_ > 0) flush_ = std::make_unique<Buffer>(device, flush_bytes_);
  if (flush_bytes_ > 0 && flush_kind_ == FlushKind::read)
    flush_sink_ = std::make_unique<Buffer>(device, kReadFlushPiece);
  sequence_ = std::make_unique<Sequence>(device, static_cast<uint32_t>(2 * options_.runs));
  Sequence& sequence = *sequence_;
  for (int run = 0; run < options_.warmup_runs + options_.runs; ++run) {
    const TimedBindings& set = sets[static_cast<size_t>(run) % sets.size()];
    // Reset first, then flush: the flush also evicts the reset's lines.
    for (const TimedBindings::Reset& reset : set.resets) sequence.copy(*reset.source, *reset.output);
    if (flush_sink_) {
      // Read piece by piece onto the one sink (each copy ordered after the one before: they write the same bytes).
      for (std::size_t offset = 0; offset < flush_bytes_; offset += kReadFlushPiece)
        sequence.copy(*flush_, *flush_sink_, offset);
    } else if (flush_) {
      sequence.fill(*flush_, static_cast<uint32_t>(run));
    }
    sequence.barrier();
    const bool timed = run >= options_.warmup_runs;
    if (timed) sequence.timestamp();
    record(sequence, set.bound);
    if (timed) sequence.timestamp();
  }
}

DispatchTimer::DispatchTimer(Device& device, const std::function<void(Sequence&)>& record, TimingOptions options)
    : DispatchTimer(device, {TimedBindings{}}, [&record](Sequence& sequence, const auto&) { record(sequence); },
                    options) {}

DispatchTimer::~DispatchTimer() = default;

TimingStats DispatchTimer::measure() {
  std::optional<TimingLock> lock;
  if (options_.exclusive) lock.emplace(device_.info());
  if (!warmed_up_) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.warmup_seconds);
    do sequence_->run();
    while (std::chrono::steady_clock::now() < until);
    warmed_up_ = true;
  }
  sequence_->run();
  std::vector<double> samples;
  for (int run = 0; run < options_.runs; ++run)
    samples.push_back(sequence_->elapsed_ns(static_cast<uint32_t>(2 * run), static_cast<uint32_t>(2 * run + 1)));
  return summarize_samples(std::move(samples));
}

TimingStats time_dispatches(Device& device, const std::function<void(Sequence&)>& record, const TimingOptions& options) {
  return DispatchTimer(device, record, options).measure();
}

}  // namespace kernelgen
