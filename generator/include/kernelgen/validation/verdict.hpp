#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernelgen/timing.hpp"
#include "kernelgen/validation/compare.hpp"

namespace kernelgen {

enum class Status {
  PASSED,
  COMPILE_ERROR,
  INTERFACE_MISMATCH,
  RUNTIME_ERROR,
  TIMEOUT,
  INCORRECT_NUMERICAL,
  NONDETERMINISTIC,
  WROTE_INPUT,
  OUT_OF_BOUNDS,
};

const char* status_name(Status status);
std::optional<Status> parse_status(const std::string& name);

struct CaseResult {
  std::string name;
  uint64_t seed = 0;
  Status status = Status::PASSED;
  std::string tensor;  // the output (or, for WROTE_INPUT/OUT_OF_BOUNDS, the tensor) the failure is in
  std::string detail;  // one line a person or a model can act on
  Comparison comparison;
  std::string dims;  // the size it ran at, "rows=5 cols=7"; empty for an op without dims

  bool passed() const { return status == Status::PASSED; }
};

struct Timing {
  std::string device;
  int runs = 0;
  std::string dims;  // the size timed (the op's bench dims), empty for an op without dims
  double median_ns = 0;
  double min_ns = 0;
  double p25_ns = 0;  // quartiles: p75 - p25 is the spread a speed-up must beat (timing.hpp)
  double p75_ns = 0;
  uint64_t flush_bytes = 0;  // the cache flush between runs
  // How it evicted: "write" (its bytes written) or "read" (KERNELGEN_TIMING_FLUSH); in JSON only when "read".
  std::string flush = "write";
  double gbytes_per_second = 0;
  double gflops = 0;
  // max(GB/s / peak bandwidth, GFLOP/s / peak FLOP/s) of the device's measured peaks, when known.
  std::optional<double> fraction_of_peak;
  // Whether those peaks bound this timing, so that a fraction above kImpossibleFractionOfPeak
  // (optimise/device_peaks.hpp) means the timing is wrong: on a GPU; not on a CPU device such as lavapipe, whose
  // copy probe over buffers larger than its caches moves less than a kernel over a working set that fits them.
  bool peaks_bound = true;
  // The driver's statistics of the timed kernel (Kernel::statistics(): name and value, e.g. NVIDIA's register
  // count), where the device reports them.
  std::vector<std::pair<std::string, std::string>> pipeline;

  TimingStats stats() const;
};

// The outcome of validating one candidate. Everything a record, a manifest and the next round's prompt need.
struct Verdict {
  Status status = Status::PASSED;
  std::string reason;  // the first failure, in one line
  uint64_t base_seed = 0;
  std::string device;                // where it ran; for a rejection, the device that rejected it
  std::vector<std::string> devices;  // every device it passed on (one worker each), in order
  // Every subgroup size it ran at, in order, each once: a device's own, a GPU's smallest and largest where
  // they differ from it, and a second width of lavapipe's (isolated_validation.hpp). For a rejection, the
  // last is the one that rejected it.
  std::vector<uint32_t> subgroup_sizes;
  // What the validation protocol lacked (validation/protocol.hpp: "cpu_device", "validation_layer"); empty for
  // the full protocol.
  std::vector<std::string> reduced;
  std::string log;  // compile log or runtime error text
  std::vector<CaseResult> cases;
  std::optional<Timing> timing;
  std::string timing_error;  // why a kernel that passed has no timing

  bool passed() const { return status == Status::PASSED; }
};

// A Timing's pipeline statistics on one line: "name value, name value".
std::string pipeline_text(const std::vector<std::pair<std::string, std::string>>& statistics);

// Human-readable report: the status, the reason, one line per case (for an op validated at several sizes: the
// failing cases and one line per case kind over all sizes), the seed to replay.
std::string describe(const Verdict& verdict);

void to_json(nlohmann::json& json, const Timing& timing);
void to_json(nlohmann::json& json, const Verdict& verdict);
// The inverse of to_json; throws nlohmann::json::exception or std::invalid_argument for a malformed verdict.
void from_json(const nlohmann::json& json, Timing& timing);
void from_json(const nlohmann::json& json, CaseResult& result);
void from_json(const nlohmann::json& json, Verdict& verdict);

}  // namespace kernelgen
