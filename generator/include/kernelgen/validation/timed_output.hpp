#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kernelgen/contract/host_tensor.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/reference_types.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/verdict.hpp"

namespace kernelgen {

// The output a timing leaves (BENCH_DIMS, or CPU_BENCH_DIMS on a CPU device) checked against the reference, so
// that a kernel that is right at the validated sizes and wrong, or idle, at the size it is timed at cannot win
// a search or a benchmark.
//
// Where the reference on every case checked at that size would take more than kFullReferenceSeconds together
// (estimated from one run at the probe size, scaled by FLOPS, else by bytes), the check covers a sample of rows instead: the rows of the op's
// row dim (see row_dim), which are the first, the second, the middle, the last two, the two either side of the
// last multiples of 64 and of 256 below the last row (where a ragged last tile begins), and kSampledRandomRows
// drawn from the seed. The reference then runs on those rows alone, which is exact only if the op computes each
// row from the same rows of the inputs: that is checked first at the probe size, against the whole reference.
// An op without a row dim, or whose rows depend on each other, gets the whole reference, however long it takes.
// Where the rows are independent, the reference runs on the (sampled or all) rows split among as many threads as
// the machine has cores, a run of consecutive rows each (an op's reference is a pure function of its inputs).

constexpr double kFullReferenceSeconds = 2.0;
constexpr int kSampledRandomRows = 16;

// The cases the timed size is checked on: the timed runs rotate through the inputs of the first
// kTimedInputSets, and the kernel runs once on each of the others (on all of them where it is not timed), each
// time from poisoned outputs. Uniform and normal are timed: dense random values, where no kernel has a fast
// path; the others are where a kernel right on those goes wrong (overflow, an outlier's lost bits, NaN, -0).
std::span<const char* const> timed_size_case_names();
constexpr size_t kTimedInputSets = 2;

// What a kernel computed at the timed size on one case: the outputs it left, poisoned before it ran.
struct TimedSizeOutput {
  TestCase inputs;
  std::vector<HostTensor> outputs;
  bool timed = false;  // left by timed runs, else by one run of its own
};

// The symbolic dim that every tensor it appears in has as its first extent and as no other, the first output
// among them: the dim whose rows a sample can take. nullopt where there is none.
std::optional<int> row_dim(const OpSpec& spec);

// The rows a sample checks of a dim of `rows` rows, ascending and distinct (see above).
std::vector<int64_t> sampled_rows(int64_t rows, uint64_t seed);

// The case cut down to these rows of `dim`: tensors whose first extent is that dim keep those rows, the others
// stay whole, and the dim's value becomes the number of rows.
TestCase rows_of(const OpSpec& spec, const TestCase& test_case, int dim, const std::vector<int64_t>& rows);
HostTensor rows_of(const HostTensor& tensor, const std::vector<int64_t>& rows);

// The check of outputs at the timed size `timed`, on `cases` cases: whether to sample rows is decided once, from
// the reference's estimated time on all of them. `probe` is a size already validated, small enough to run the
// whole reference at; `full_reference_seconds`, the estimate above which rows are sampled; `seed`, the base seed
// of the probe's inputs.
class TimedOutputCheck {
 public:
  TimedOutputCheck(const OpSpec& spec, ReferenceFunction reference, const DimValues& timed, uint64_t seed,
                   const DimValues& probe, size_t cases = 1, double full_reference_seconds = kFullReferenceSeconds);
  // A failing CaseResult named "timed" (INCORRECT_NUMERICAL, naming the size, the case and, when sampled, the
  // rows; the nonfinite case lets an output be anything where the reference's is NaN) or nullopt.
  std::optional<CaseResult> operator()(const TimedSizeOutput& run) const;

 private:
  const OpSpec& spec_;
  ReferenceFunction reference_;
  std::optional<int> dim_;
  bool independent_rows_ = false;
  bool sampled_ = false;
};

// One timed output checked, as a TimedOutputCheck of one case does.
std::optional<CaseResult> check_timed_outputs(const OpSpec& spec, ReferenceFunction reference,
                                              const TestCase& timed_inputs, const std::vector<HostTensor>& outputs,
                                              const DimValues& probe,
                                              double full_reference_seconds = kFullReferenceSeconds);

}  // namespace kernelgen
