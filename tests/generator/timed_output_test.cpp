// The output of a timed run checked against the reference (kernelgen/validation/timed_output.hpp): the whole of
// it where the reference is quick, a sample of rows where it is slow and the op's rows are independent.
#include "kernelgen/validation/timed_output.hpp"
#include "support/spec_from.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

using test::spec_from;

// y[r][c] = 2 x[r][c]: every row on its own.
OpSpec twice_spec() {
  return spec_from(R"({"name": "twice", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", "cols"]}],
    "dims": {"rows": [1, 7, 100], "cols": [1, 5, 33]}, "bench_dims": {"rows": 5000, "cols": 8}})");
}

void twice(std::span<const ConstTensorView> in, std::span<const TensorView> out, const Params&) {
  const float* x = in[0].as<const float>();
  float* y = out[0].as<float>();
  for (int64_t i = 0; i < in[0].size(); ++i) y[i] = 2 * x[i];
}

// y[r][c] = the sum of x's rows 0..r in column c: every row depends on those before it, as causal attention's.
void running_sum(std::span<const ConstTensorView> in, std::span<const TensorView> out, const Params&) {
  const float* x = in[0].as<const float>();
  float* y = out[0].as<float>();
  const int64_t cols = in[0].dim(1);
  for (int64_t i = 0; i < in[0].size(); ++i) y[i] = x[i] + (i >= cols ? y[i - cols] : 0.0f);
}

std::vector<HostTensor> outputs_of(const OpSpec& spec, ReferenceFunction reference, const TestCase& inputs) {
  std::vector<ConstTensorView> in{{"x", DType::f32, inputs.inputs[0].bytes.data(), inputs.inputs[0].shape}};
  std::vector<HostTensor> outputs{HostTensor(DType::f32, spec.outputs[0].shape_at(inputs.dims))};
  std::vector<TensorView> out{{"y", DType::f32, outputs[0].bytes.data(), outputs[0].shape}};
  reference(in, out, Params());
  return outputs;
}

TEST(RowDim, IsTheFirstExtentOfEveryOutputThatAppearsNowhereElse) {
  EXPECT_EQ(row_dim(twice_spec()), 0);
  const OpSpec matmul = spec_from(R"({"name": "matmul", "contract": 2,
    "inputs": [{"name": "a", "dtype": "f32", "shape": ["m", "k"]}, {"name": "b", "dtype": "f32", "shape": ["k", "n"]}],
    "outputs": [{"name": "c", "dtype": "f32", "shape": ["m", "n"]}], "dims": {"m": [4], "k": [4], "n": [4]}})");
  EXPECT_EQ(row_dim(matmul), 0) << "m: a's and c's rows; b stays whole";
  const OpSpec transpose = spec_from(R"({"name": "transpose", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["cols", "rows"]}], "dims": {"rows": [4], "cols": [4]}})");
  EXPECT_EQ(row_dim(transpose), std::nullopt);
  const OpSpec column_sum = spec_from(R"({"name": "column_sum", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["cols"]}], "dims": {"rows": [4], "cols": [4]}})");
  EXPECT_EQ(row_dim(column_sum), std::nullopt) << "cols is y's rows but x's second extent; rows is not y's";
}

TEST(SampledRows, HoldTheFirstTheLastAndTheEdgesOfTheLastTiles) {
  const auto rows = sampled_rows(1000, 5);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end()) << "distinct";
  for (int64_t row : {0, 1, 500, 998, 999, 959, 960, 767, 768})
    EXPECT_NE(std::find(rows.begin(), rows.end(), row), rows.end()) << "row " << row;
  EXPECT_GE(rows.size(), 9u + kSampledRandomRows / 2) << "and rows drawn from the seed";
  EXPECT_NE(sampled_rows(1000, 5), sampled_rows(1000, 6));
  EXPECT_EQ(sampled_rows(1, 5), std::vector<int64_t>{0});
}

TEST(CheckTimedOutputs, PassesTheReferencesOwnOutput) {
  const OpSpec spec = twice_spec();
  const TestCase inputs = make_case(spec, "uniform", 9, spec.bench_dims());
  EXPECT_EQ(check_timed_outputs(spec, &twice, inputs, outputs_of(spec, &twice, inputs), {100, 33}), std::nullopt);
}

TEST(CheckTimedOutputs, RejectsAnOutputLeftUnwrittenPastRow1000NamingTheTimedSize) {
  const OpSpec spec = twice_spec();
  const TestCase inputs = make_case(spec, "uniform", 9, spec.bench_dims());
  auto outputs = outputs_of(spec, &twice, inputs);
  for (int64_t i = 1000 * 8; i < outputs[0].elements(); ++i) outputs[0].set(i, std::nan(""));
  const auto wrong = check_timed_outputs(spec, &twice, inputs, outputs, {100, 33});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->name, "timed");
  EXPECT_EQ(wrong->status, Status::INCORRECT_NUMERICAL);
  EXPECT_EQ(wrong->dims, "rows=5000 cols=8");
  EXPECT_THAT(wrong->detail, HasSubstr("the output of the timed run at rows=5000 cols=8"));
  EXPECT_EQ(wrong->comparison.first_mismatch, 8000);
  EXPECT_EQ(wrong->comparison.mismatches, 4000 * 8) << "the whole output checked: the reference is quick";
}

TEST(CheckTimedOutputs, WhereTheReferenceIsSlowChecksSampledRowsAndStillFindsTheLastOneWrong) {
  const OpSpec spec = twice_spec();
  const TestCase inputs = make_case(spec, "uniform", 9, spec.bench_dims());
  auto outputs = outputs_of(spec, &twice, inputs);
  outputs[0].set(outputs[0].elements() - 1, 12345.0);  // the last element of the last row
  const auto wrong = check_timed_outputs(spec, &twice, inputs, outputs, {100, 33}, /*full_reference_seconds=*/0);
  ASSERT_TRUE(wrong);
  EXPECT_THAT(wrong->detail, HasSubstr(" of its 5000 rows checked"));
  EXPECT_EQ(wrong->comparison.first_mismatch, 5000 * 8 - 1) << "the index in the whole output";
  EXPECT_LT(wrong->comparison.elements, 5000 * 8) << "a sample";
}

TEST(CheckTimedOutputs, RowsThatDependOnEachOtherAreCheckedWhole) {
  OpSpec spec = twice_spec();
  spec.name = "running_sum";
  const TestCase inputs = make_case(spec, "uniform", 9, spec.bench_dims());
  auto outputs = outputs_of(spec, &running_sum, inputs);
  EXPECT_EQ(check_timed_outputs(spec, &running_sum, inputs, outputs, {100, 33}, 0), std::nullopt)
      << "sampling its rows would change the reference: the whole output is checked, and it is right";
  const auto rows = sampled_rows(5000, inputs.seed);
  int64_t unsampled = 2;
  while (std::find(rows.begin(), rows.end(), unsampled) != rows.end()) ++unsampled;
  outputs[0].set(unsampled * 8, -777.0);
  const auto wrong = check_timed_outputs(spec, &running_sum, inputs, outputs, {100, 33}, 0);
  ASSERT_TRUE(wrong) << "row " << unsampled << " is in no sample, and still checked";
  EXPECT_EQ(wrong->comparison.first_mismatch, unsampled * 8);
  EXPECT_EQ(wrong->comparison.elements, 5000 * 8);
}

// twice, which also notes the threads it ran on.
std::mutex g_threads_mutex;
std::set<std::thread::id> g_threads;
void twice_noting_threads(std::span<const ConstTensorView> in, std::span<const TensorView> out, const Params& p) {
  {
    std::lock_guard lock(g_threads_mutex);
    g_threads.insert(std::this_thread::get_id());
  }
  twice(in, out, p);
}

TEST(CheckTimedOutputs, WhereTheReferenceIsSlowSplitsIndependentRowsAmongThreadsAndFindsTheOneWrongElement) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: the rows run on one thread";
  // 20 rows: too few to sample, all checked.
  const OpSpec spec = spec_from(R"({"name": "twice", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", "cols"]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows", "cols"]}],
    "dims": {"rows": [1, 7, 100], "cols": [1, 5, 33]}, "bench_dims": {"rows": 20, "cols": 8}})");
  const TestCase inputs = make_case(spec, "uniform", 9, spec.bench_dims());
  auto outputs = outputs_of(spec, &twice, inputs);
  EXPECT_EQ(check_timed_outputs(spec, &twice_noting_threads, inputs, outputs, {100, 33}, 0), std::nullopt)
      << "the rows put back together in order";
  g_threads.clear();
  outputs[0].set(13 * 8 + 5, -1.0);
  const auto wrong = check_timed_outputs(spec, &twice_noting_threads, inputs, outputs, {100, 33}, 0);
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->comparison.first_mismatch, 13 * 8 + 5) << "the index in the whole output";
  EXPECT_EQ(wrong->comparison.mismatches, 1);
  EXPECT_EQ(wrong->comparison.elements, 20 * 8) << "every row";
  EXPECT_GE(g_threads.size(), 2u) << "the reference ran on several threads";
}

}  // namespace
}  // namespace kernelgen
