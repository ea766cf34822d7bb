#pragma once
#include <cstdint>
#include <optional>
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
// Where the reference at that size would take more than kFullReferenceSeconds (estimated from one run at the
// probe size, scaled by FLOPS, else by bytes), the check covers a sample of rows instead: the rows of the op's
// row dim (see row_dim), which are the first, the second, the middle, the last two, the two either side of the
// last multiples of 64 and of 256 below the last row (where a ragged last tile begins), and kSampledRandomRows
// drawn from the seed. The reference then runs on those rows alone, which is exact only if the op computes each
// row from the same rows of the inputs: that is checked first at the probe size, against the whole reference.
// An op without a row dim, or whose rows depend on each other, gets the whole reference, however long it takes.
// Where the rows are independent, the reference runs on the (sampled or all) rows split among as many threads as
// the machine has cores, a run of consecutive rows each (an op's reference is a pure function of its inputs).

constexpr double kFullReferenceSeconds = 2.0;
constexpr int kSampledRandomRows = 16;

// The symbolic dim that every tensor it appears in has as its first extent and as no other, the first output
// among them: the dim whose rows a sample can take. nullopt where there is none.
std::optional<int> row_dim(const OpSpec& spec);

// The rows a sample checks of a dim of `rows` rows, ascending and distinct (see above).
std::vector<int64_t> sampled_rows(int64_t rows, uint64_t seed);

// The case cut down to these rows of `dim`: tensors whose first extent is that dim keep those rows, the others
// stay whole, and the dim's value becomes the number of rows.
TestCase rows_of(const OpSpec& spec, const TestCase& test_case, int dim, const std::vector<int64_t>& rows);
HostTensor rows_of(const HostTensor& tensor, const std::vector<int64_t>& rows);

// The outputs of a timed run, checked: a failing CaseResult named "timed" (INCORRECT_NUMERICAL, naming the size
// and, when sampled, the rows) or nullopt. `probe` is a size already validated, small enough to run the whole
// reference at; `full_reference_seconds`, the estimate above which rows are sampled.
std::optional<CaseResult> check_timed_outputs(const OpSpec& spec, ReferenceFunction reference,
                                              const TestCase& timed_inputs, const std::vector<HostTensor>& outputs,
                                              const DimValues& probe,
                                              double full_reference_seconds = kFullReferenceSeconds);

}  // namespace kernelgen
