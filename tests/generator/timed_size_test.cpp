// The size a kernel is timed at (CPU_BENCH_DIMS here, on lavapipe), through evaluate_source and time_kernel: every
// timed run starts from freshly poisoned outputs, on inputs that alternate between two cases, and the outputs
// the runs leave are checked, so a kernel that leaves a tile alone where its output already holds the answer is
// timed doing the work, and one that is right only on an output an earlier run left is rejected; and the timed
// size is checked on six input distributions, so a kernel right there on uniform inputs alone is rejected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kernelgen/reference.hpp>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>

#include "kernelgen/device.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "kernelgen/validation/timed_output.hpp"
#include "support/rowsum_reference.hpp"

KERNELGEN_REFERENCE(softmax_rows) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_matrix(outputs[0]);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float m = x.row(r).maxCoeff();
    const auto e = (x.row(r).array() - m).exp();
    y.row(r) = e / e.sum();
  }
}

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

// Validated at rows 1, 5, 64 and 333 and at sizes drawn around them, all below 1000; timed at 2000 rows on a CPU
// device, 5000 on a GPU.
OpSpec spec_of(const std::string& name, int columns) {
  return parse_op_spec(nlohmann::json::parse(R"({"name": ")" + name + R"(", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", )" + std::to_string(columns) + R"(]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["rows")" + (name == "rowsum" ? std::string() : ", 64") + R"(]}],
    "dims": {"rows": [1, 5, 64, 333]}, "bench_dims": {"rows": 5000}, "cpu_bench_dims": {"rows": 2000}})"));
}

std::string kernel(const std::string& file) { return read_file(std::string(KERNELGEN_TEST_KERNELS_DIR) + "/" + file); }

class TimedSize : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<Device>(validation_device_options()); }
  static void TearDownTestSuite() { device_.reset(); }

  // The kernel validated; timed over `timing_runs` runs where that is above 0, else checked at the timed size
  // where `timed_size`.
  static Verdict evaluate(const OpSpec& spec, const std::string& file, int timing_runs, bool timed_size = false) {
    ValidationOptions options{.base_seed = base_seed_from_environment(), .timing_runs = timing_runs};
    options.check_timed_size = timed_size;
    return evaluate_source(*device_, spec, find_reference(spec.name), kernel(file), options);
  }
  static KernelBinary compiled(const OpSpec& spec, const std::string& file) {
    auto compiled = compile_candidate(spec, kernel(file));
    if (auto* rejected = std::get_if<Verdict>(&compiled)) throw std::logic_error(file + ": " + rejected->reason);
    return std::get<KernelBinary>(compiled);
  }
  static size_t timed_cases(const Verdict& verdict) {
    size_t timed = 0;
    for (const CaseResult& c : verdict.cases) timed += c.name == "timed" && c.passed();
    return timed;
  }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> TimedSize::device_;

// --- every timed run from fresh outputs, on changing inputs ---------------------------------------------------

// What time_kernel leaves: per case timed (uniform, then normal, their inputs different), the outputs of that
// case's last run, which started from poison. A kernel right only where an earlier run left its output has them
// wrong, and right where they were reused.
TEST_F(TimedSize, EachTimedCaseLeavesTheOutputOfOneRunFromPoisonedOutputs) {
  const OpSpec spec = spec_of("rowsum", 300);
  const uint64_t seed = base_seed_from_environment();
  const TimedRun twice = time_kernel(*device_, spec, compiled(spec, "rowsum_finishes_on_a_second_call.comp"), 3, seed);
  ASSERT_EQ(twice.outputs.size(), kTimedInputSets);
  EXPECT_EQ(twice.outputs[0].inputs.name, "uniform");
  EXPECT_EQ(twice.outputs[1].inputs.name, "normal");
  EXPECT_NE(twice.outputs[0].inputs.inputs, twice.outputs[1].inputs.inputs);
  for (const TimedSizeOutput& run : twice.outputs) {
    EXPECT_TRUE(run.timed);
    const auto wrong = check_timed_outputs(spec, find_reference("rowsum"), run.inputs, run.outputs, {333});
    ASSERT_TRUE(wrong) << "the " << run.inputs.name << " case's output was reused from an earlier run";
    EXPECT_THAT(wrong->detail, HasSubstr("first at index 1:"));  // row 0 of the first tile alone was written
  }
  const TimedRun right = time_kernel(*device_, spec, compiled(spec, "rowsum.comp"), 3, seed);
  for (const TimedSizeOutput& run : right.outputs)
    EXPECT_FALSE(check_timed_outputs(spec, find_reference("rowsum"), run.inputs, run.outputs, {333}));
}

// The search's timing: right only on an output left by an earlier run, the kernel is rejected by its timed
// output; one that leaves a tile alone where its output already holds the answer is right from poison on every
// run, so it is timed doing the whole work (tests/runtime/timing_test.cpp counts that work), and passes.
TEST_F(TimedSize, AKernelRightOnlyOnAnOutputAnEarlierRunLeftIsRejectedByItsTimedOutput) {
  const OpSpec spec = spec_of("rowsum", 300);
  const Verdict untimed = evaluate(spec, "rowsum_finishes_on_a_second_call.comp", 0);
  ASSERT_TRUE(untimed.passed()) << "right at every size validated: " << describe(untimed);

  const Verdict timed = evaluate(spec, "rowsum_finishes_on_a_second_call.comp", 3);
  EXPECT_EQ(timed.status, Status::INCORRECT_NUMERICAL);
  EXPECT_THAT(timed.reason, HasSubstr("case timed: the output of the timed run at rows=2000, on the uniform case"));
  EXPECT_FALSE(timed.timing);

  const Verdict skips = evaluate(spec, "rowsum_skips_written_tiles.comp", 3);
  EXPECT_TRUE(skips.passed()) << describe(skips);
  EXPECT_TRUE(skips.timing);
  EXPECT_EQ(timed_cases(skips), timed_size_case_names().size());
}

// --- the timed size on every distribution -----------------------------------------------------------------------

// A softmax that leaves out the row max at the timed size alone: right there on uniform and normal inputs (the
// timed ones), infinite on the large case's. Rejected, timed or not, naming the case; its correct twin passes.
TEST_F(TimedSize, AKernelRightOnUniformInputsAtTheTimedSizeAndWrongOnLargeOnesIsRejected) {
  const OpSpec spec = spec_of("softmax_rows", 64);
  const Verdict untimed = evaluate(spec, "softmax_skips_max_above_1000_rows.comp", 0);
  ASSERT_TRUE(untimed.passed()) << "right at every size validated: " << describe(untimed);

  for (const int timing_runs : {3, 0}) {
    const Verdict verdict = evaluate(spec, "softmax_skips_max_above_1000_rows.comp", timing_runs, true);
    EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
    EXPECT_THAT(verdict.reason,
                HasSubstr("case timed: the output of a run at the timed size rows=2000, on the large case"));
    ASSERT_FALSE(verdict.cases.empty());
    EXPECT_EQ(verdict.cases.back().name, "timed");
    EXPECT_FALSE(verdict.timing) << "a wrong kernel has no timing to compete with";
  }

  const Verdict right = evaluate(spec, "softmax_rows.comp", 3);
  EXPECT_TRUE(right.passed()) << describe(right);
  EXPECT_TRUE(right.timing);
  EXPECT_EQ(timed_cases(right), timed_size_case_names().size());
}

TEST(TimedSizeCases, AreTheTwoTimedOnesThenTheDistributionsWhereKernelsGoWrong) {
  const auto names = timed_size_case_names();
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()),
            (std::vector<std::string>{"uniform", "normal", "large", "outliers", "nonfinite", "signed_zeros"}));
  for (const char* name : names) EXPECT_NO_THROW(make_case(spec_of("rowsum", 300), name, 1, {7})) << name;
}

}  // namespace
}  // namespace kernelgen
