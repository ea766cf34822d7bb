#include "kernelgen/validation/timed_output.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <random>
#include <string>
#include <thread>

#include "kernelgen/validation/compare.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {

namespace {

bool is_row_dim(const OpSpec& spec, int dim) {
  for (const TensorSpec& tensor : spec.tensors()) {
    if (tensor.index_of && tensor.index_of->dim_index == dim) return false;  // slicing would move its indices
    for (size_t e = 1; e < tensor.shape.size(); ++e)
      if (tensor.shape[e].dim_index == dim) return false;
  }
  return std::all_of(spec.outputs.begin(), spec.outputs.end(), [&](const TensorSpec& output) {
    return !output.shape.empty() && output.shape.front().dim_index == dim;
  });
}

bool has_rows_of(const TensorSpec& tensor, int dim) {
  return !tensor.shape.empty() && tensor.shape.front().dim_index == dim;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The reference's outputs at the probe size, and how long it and its magnitudes would take at the timed dims:
// that run's time scaled by the FLOPs where the op declares them, else by the bytes.
struct ProbeRun {
  std::vector<HostTensor> outputs;
  double estimated_seconds = 0;
};

ProbeRun run_probe(const OpSpec& spec, ReferenceFunction reference, const TestCase& probe, const DimValues& timed) {
  const auto start = std::chrono::steady_clock::now();
  ProbeRun run{run_reference(spec, reference, probe)};
  const double seconds = seconds_since(start);
  const double probe_flops = spec.flops_at(probe.dims);
  const double scale = probe_flops > 0 ? spec.flops_at(timed) / probe_flops
                                       : spec.bytes_at(timed) / std::max(1.0, spec.bytes_at(probe.dims));
  run.estimated_seconds = 2 * seconds * scale;
  return run;
}

// Whether the reference gives each sampled row of the probe the value it gives that row in the whole tensor
// (`whole`, its outputs at the probe), within the tolerance: the op computes each row of `dim` on its own.
bool rows_are_independent(const OpSpec& spec, ReferenceFunction reference, const TestCase& probe,
                          const std::vector<HostTensor>& whole, int dim) {
  const std::vector<int64_t> rows = sampled_rows(probe.dims[static_cast<size_t>(dim)], probe.seed);
  const auto sampled = run_reference(spec, reference, rows_of(spec, probe, dim, rows));
  for (size_t o = 0; o < spec.outputs.size(); ++o) {
    const Tolerance tolerance = spec.tolerance_of(spec.outputs[o]);
    if (!compare_outputs(sampled[o], rows_of(whole[o], rows), tolerance).passed()) return false;
  }
  return true;
}

// An element's index in the whole tensor, from its index in a sample of its rows.
int64_t index_in_whole(const HostTensor& sample, const std::vector<int64_t>& rows, int64_t index) {
  const int64_t row_elements = sample.elements() / std::max<int64_t>(1, sample.shape.front());
  return rows[static_cast<size_t>(index / row_elements)] * row_elements + index % row_elements;
}

// The reference's outputs for a case and the magnitudes of their terms.
struct Expected {
  std::vector<HostTensor> outputs;
  std::vector<HostTensor> magnitudes;
};

Expected expected_of(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case) {
  return {run_reference(spec, reference, test_case), reference_magnitudes(spec, reference, test_case)};
}

// Each tensor of `parts` (rows of one tensor, in order) put back together along its first extent.
std::vector<HostTensor> joined(const std::vector<std::vector<HostTensor>>& parts) {
  std::vector<HostTensor> whole;
  for (size_t t = 0; t < parts.front().size(); ++t) {
    std::vector<int64_t> shape = parts.front()[t].shape;
    shape.front() = 0;
    for (const auto& part : parts) shape.front() += part[t].shape.front();
    HostTensor tensor(parts.front()[t].dtype, shape);
    auto end = tensor.bytes.begin();
    for (const auto& part : parts) end = std::copy(part[t].bytes.begin(), part[t].bytes.end(), end);
    whole.push_back(std::move(tensor));
  }
  return whole;
}

// expected_of, with the case's rows of `dim` split into `threads` runs of consecutive rows at once: the same
// outputs where the op computes each row on its own (which rows_are_independent checked), in a fraction of the
// time on a machine of several cores. An exception in any run reaches the caller.
Expected expected_in_row_chunks(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case, int dim,
                                unsigned threads) {
  const int64_t rows = test_case.dims[static_cast<size_t>(dim)];
  const int64_t chunks = std::min<int64_t>(std::max(1u, threads), rows);
  if (chunks <= 1) return expected_of(spec, reference, test_case);
  std::vector<std::future<Expected>> runs;
  for (int64_t c = 0; c < chunks; ++c) {
    std::vector<int64_t> chunk;
    for (int64_t row = c * rows / chunks; row < (c + 1) * rows / chunks; ++row) chunk.push_back(row);
    runs.push_back(std::async(std::launch::async, [&spec, reference, part = rows_of(spec, test_case, dim, chunk)] {
      return expected_of(spec, reference, part);
    }));
  }
  std::vector<std::vector<HostTensor>> outputs, magnitudes;
  for (auto& run : runs) {
    Expected part = run.get();
    outputs.push_back(std::move(part.outputs));
    magnitudes.push_back(std::move(part.magnitudes));
  }
  return {joined(outputs), magnitudes.front().empty() ? std::vector<HostTensor>{} : joined(magnitudes)};
}

}  // namespace

std::optional<int> row_dim(const OpSpec& spec) {
  for (const TensorSpec& output : spec.outputs) {
    if (output.shape.empty() || !output.shape.front().symbolic()) continue;
    const int dim = output.shape.front().dim_index;
    if (is_row_dim(spec, dim)) return dim;
  }
  return std::nullopt;
}

std::vector<int64_t> sampled_rows(int64_t rows, uint64_t seed) {
  std::vector<int64_t> picked{0, 1, rows / 2, rows - 2, rows - 1};
  for (int64_t tile : {64, 256}) {
    const int64_t last_multiple = (rows - 1) / tile * tile;
    picked.push_back(last_multiple - 1);
    picked.push_back(last_multiple);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any_row(0, std::max<int64_t>(0, rows - 1));
  for (int i = 0; i < kSampledRandomRows; ++i) picked.push_back(any_row(rng));
  std::erase_if(picked, [&](int64_t row) { return row < 0 || row >= rows; });
  std::sort(picked.begin(), picked.end());
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  return picked;
}

HostTensor rows_of(const HostTensor& tensor, const std::vector<int64_t>& rows) {
  std::vector<int64_t> shape = tensor.shape;
  const int64_t row_elements = tensor.elements() / std::max<int64_t>(1, shape.front());
  shape.front() = static_cast<int64_t>(rows.size());
  HostTensor sample(tensor.dtype, shape);
  const size_t row_bytes = static_cast<size_t>(row_elements) * dtype_bytes(tensor.dtype);
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy_n(tensor.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(rows[r]) * row_bytes),
                row_bytes, sample.bytes.begin() + static_cast<std::ptrdiff_t>(r * row_bytes));
  return sample;
}

TestCase rows_of(const OpSpec& spec, const TestCase& test_case, int dim, const std::vector<int64_t>& rows) {
  TestCase sample = test_case;
  sample.dims[static_cast<size_t>(dim)] = static_cast<int64_t>(rows.size());
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    if (has_rows_of(spec.inputs[i], dim)) sample.inputs[i] = rows_of(test_case.inputs[i], rows);
  return sample;
}

std::span<const char* const> timed_size_case_names() {
  static const char* const kNames[] = {"uniform", "normal", "large", "outliers", "nonfinite", "signed_zeros"};
  return kNames;
}

TimedOutputCheck::TimedOutputCheck(const OpSpec& spec, ReferenceFunction reference, const DimValues& timed,
                                   uint64_t seed, const DimValues& probe, size_t cases, double full_reference_seconds)
    : spec_(spec), reference_(reference), dim_(row_dim(spec)) {
  const int64_t timed_rows = dim_ ? timed[static_cast<size_t>(*dim_)] : 1;
  if (timed_rows <= 1) return;
  const TestCase probe_case = make_case(spec, "uniform", seed, probe);
  const ProbeRun probe_run = run_probe(spec, reference, probe_case, timed);
  independent_rows_ = probe_run.estimated_seconds * static_cast<double>(cases) > full_reference_seconds &&
                      rows_are_independent(spec, reference, probe_case, probe_run.outputs, *dim_);
  sampled_ = independent_rows_ && timed_rows > 2 * kSampledRandomRows;
}

std::optional<CaseResult> TimedOutputCheck::operator()(const TimedSizeOutput& run) const {
  const TestCase& timed_inputs = run.inputs;
  // The sampled rows, where rows are sampled; else the whole case, not copied (it may take gigabytes).
  TestCase sampled_inputs;
  std::vector<HostTensor> sampled_outputs;
  std::vector<int64_t> rows;
  if (sampled_) {
    rows = sampled_rows(timed_inputs.dims[static_cast<size_t>(*dim_)], timed_inputs.seed);
    sampled_inputs = rows_of(spec_, timed_inputs, *dim_, rows);
    for (const HostTensor& output : run.outputs) sampled_outputs.push_back(rows_of(output, rows));
  }
  const TestCase& checked = sampled_ ? sampled_inputs : timed_inputs;
  const std::vector<HostTensor>& got = sampled_ ? sampled_outputs : run.outputs;
  const unsigned threads = std::thread::hardware_concurrency();
  const auto [expected, magnitudes] = independent_rows_
                                          ? expected_in_row_chunks(spec_, reference_, checked, *dim_, threads)
                                          : expected_of(spec_, reference_, checked);
  const NanRule nan = timed_inputs.name == "nonfinite" ? NanRule::free_where_reference_is_nan : NanRule::must_match;
  const std::string where = timed_inputs.dims.empty() ? "" : " at " + dims_text(spec_, timed_inputs.dims);
  for (size_t o = 0; o < spec_.outputs.size(); ++o) {
    const TensorSpec& output = spec_.outputs[o];
    const Tolerance tolerance = spec_.tolerance_of(output);
    Comparison comparison = compare_outputs(got[o], expected[o], tolerance,
                                            magnitudes.empty() ? nullptr : &magnitudes[o], nan);
    if (comparison.passed()) continue;
    std::string sample;
    if (!rows.empty()) {
      comparison.first_mismatch = index_in_whole(got[o], rows, comparison.first_mismatch);
      sample = " (" + std::to_string(rows.size()) + " of its " +
               std::to_string(timed_inputs.dims[static_cast<size_t>(*dim_)]) + " " +
               spec_.dims[static_cast<size_t>(*dim_)].name + " checked)";
    }
    CaseResult result{"timed", timed_inputs.seed, Status::INCORRECT_NUMERICAL, output.name};
    result.dims = dims_text(spec_, timed_inputs.dims);
    result.detail = std::string(run.timed ? "the output of the timed run at " : "the output of a run at the timed size ") +
                    result.dims + ", on the " + timed_inputs.name + " case" + sample + ": " +
                    mismatch_detail(comparison, output.name + where) +
                    "; the kernel must be right at the size it is timed at, on every input, not only at the sizes "
                    "validated";
    result.comparison = comparison;
    return result;
  }
  return std::nullopt;
}

std::optional<CaseResult> check_timed_outputs(const OpSpec& spec, ReferenceFunction reference,
                                              const TestCase& timed_inputs, const std::vector<HostTensor>& outputs,
                                              const DimValues& probe, double full_reference_seconds) {
  const TimedOutputCheck check(spec, reference, timed_inputs.dims, timed_inputs.seed, probe, 1,
                               full_reference_seconds);
  return check({timed_inputs, outputs, true});
}

}  // namespace kernelgen
