// compare_outputs: per element |got - ref| <= atol + rtol * max(|ref|, magnitude of its terms), NaN only meets
// NaN (unless the rule frees it), an infinity only the same infinity.
#include "kernelgen/validation/compare.hpp"

#include <Eigen/Core>

#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/reference.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/validate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

namespace kernelgen {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Comparison compare(const std::vector<float>& got, const std::vector<float>& expected, double atol,
                   double rtol) {
  return compare_outputs(got, expected, atol, rtol);
}

TEST(CompareOutputs, IdenticalOutputsPassWithZeroError) {
  const std::vector<float> values{-1.5f, 0.0f, 2.25f, 1e6f};
  const Comparison c = compare(values, values, 0, 0);
  EXPECT_TRUE(c.passed());
  EXPECT_EQ(c.elements, 4);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.first_mismatch, -1);
  EXPECT_EQ(c.max_abs_error, 0);
  EXPECT_EQ(c.max_rel_error, 0);
}

// The values below are exact in binary, so the edges are exact too.
TEST(CompareOutputs, AnErrorOfExactlyAtolPasses) {
  EXPECT_TRUE(compare({1.25f, 0.0f}, {1.0f, 0.0f}, 0.25, 0).passed());
}

TEST(CompareOutputs, AnErrorJustAboveAtolFails) {
  EXPECT_FALSE(compare({std::nextafter(1.25f, 2.0f), 0.0f}, {1.0f, 0.0f}, 0.25, 0).passed());
}

TEST(CompareOutputs, AnErrorOfExactlyRtolTimesTheReferencePasses) {
  EXPECT_TRUE(compare({5.0f}, {4.0f}, 0, 0.25).passed());
  EXPECT_TRUE(compare({3.0f}, {4.0f}, 0, 0.25).passed());
}

TEST(CompareOutputs, AnErrorJustAboveRtolTimesTheReferenceFails) {
  EXPECT_FALSE(compare({std::nextafter(5.0f, 6.0f)}, {4.0f}, 0, 0.25).passed());
}

TEST(CompareOutputs, AtolAndRtolAddUp) {
  // allowed: 0.25 + 0.25 * 1 = 0.5
  EXPECT_TRUE(compare({1.5f}, {1.0f}, 0.25, 0.25).passed());
  EXPECT_FALSE(compare({1.5001f}, {1.0f}, 0.25, 0.25).passed());
}

TEST(CompareOutputs, AtolIsAbsoluteWhateverTheOutputsLargestElement) {
  // Element 1 is off by 0.5: too much for atol 1e-3, next to an element of 1 or of 1000 alike.
  EXPECT_FALSE(compare({1.0f, 0.5f}, {1.0f, 0.0f}, 1e-3, 0).passed());
  EXPECT_FALSE(compare({1000.0f, 0.5f}, {1000.0f, 0.0f}, 1e-3, 0).passed());
}

// The adversary of issue 8: 0.03 added to every element above 100 is 3e-4 relative, far beyond f32's default
// rtol of 1e-5, however large the output's largest element.
TEST(CompareOutputs, AnErrorOnTheLargestElementsCannotHideBehindThem) {
  const std::vector<float> expected{0.5f, 150.0f, 9000.0f};
  EXPECT_FALSE(compare({0.5f, 150.03f, 9000.0f}, expected, 1e-5, 1e-5).passed());
  EXPECT_FALSE(compare({0.5f, 150.0f, 9000.3f}, expected, 1e-5, 1e-5).passed()) << "3.3e-5 relative";
  EXPECT_TRUE(compare({0.5f, 150.0f, std::nextafter(9000.0f, 1e9f)}, expected, 1e-5, 1e-5).passed())
      << "one ulp of 9000 is within rtol";
}

TEST(CompareOutputs, AnElementsTermsWidenItsOwnBoundOnly) {
  // A sum that cancels to 0 from terms of magnitude 1000 is allowed rtol * 1000; its neighbour is not.
  const std::vector<float> expected{0.0f, 0.0f};
  const std::vector<float> magnitude{1000.0f, 0.0f};
  EXPECT_TRUE(compare_outputs(std::vector<float>{1e-3f, 0.0f}, expected, 0, 1e-5, magnitude).passed());
  EXPECT_FALSE(compare_outputs(std::vector<float>{0.0f, 1e-3f}, expected, 0, 1e-5, magnitude).passed());
  EXPECT_FALSE(compare({1e-3f, 0.0f}, expected, 0, 1e-5).passed()) << "without the terms: |ref| alone";
}

TEST(CompareOutputs, ATermMagnitudeSmallerThanTheReferenceDoesNotNarrowTheBound) {
  EXPECT_TRUE(compare_outputs(std::vector<float>{1001.0f}, std::vector<float>{1000.0f}, 0, 1e-3,
                              std::vector<float>{1.0f})
                  .passed());
}

TEST(CompareOutputs, ANaNTermMagnitudeIsIgnored) {
  const std::vector<float> expected{1000.0f};
  EXPECT_FALSE(compare_outputs(std::vector<float>{1002.0f}, expected, 0, 1e-3, std::vector<float>{kNaN}).passed());
  EXPECT_TRUE(compare_outputs(std::vector<float>{1000.5f}, expected, 0, 1e-3, std::vector<float>{kNaN}).passed());
}

// An infinite magnitude: the terms overflowed the dtype (f16 sums of products of 1e4), so no bound exists in
// it, and a sum near the dtype's largest value may overflow on one side only. The element is counted; NaN
// against a number and opposite infinities still fail.
TEST(CompareOutputs, AnInfiniteTermMagnitudeLeavesOnlyNaNAndTheSignOfInfinityToCompare) {
  const std::vector<float> expected{1000.0f, 1000.0f, -kInf};
  const std::vector<float> terms{kInf, 1000.0f, kInf};
  const Comparison loose = compare_outputs(std::vector<float>{1012.0f, 1000.0f, -63040.0f}, expected, 0, 1e-3, terms);
  EXPECT_TRUE(loose.passed());
  EXPECT_EQ(loose.unbounded, 2);
  EXPECT_FALSE(compare_outputs(std::vector<float>{1000.0f, 1012.0f, -kInf}, expected, 0, 1e-3, terms).passed());
  EXPECT_FALSE(compare_outputs(std::vector<float>{kNaN, 1000.0f, -kInf}, expected, 0, 1e-3, terms).passed());
  EXPECT_FALSE(compare_outputs(std::vector<float>{1000.0f, 1000.0f, kInf}, expected, 0, 1e-3, terms).passed());
}

TEST(CompareOutputs, ReportsTheErrorTheFirstMismatchWasAllowed) {
  const Comparison c = compare({1.0f, 2.5f}, {1.0f, 2.0f}, 0.125, 0.125);
  EXPECT_EQ(c.first_mismatch, 1);
  EXPECT_DOUBLE_EQ(c.allowed_at_first, 0.125 + 0.125 * 2.0);
  const nlohmann::json json = c;
  EXPECT_EQ(json.at("allowed_at_first"), 0.375);
  EXPECT_DOUBLE_EQ(json.get<Comparison>().allowed_at_first, 0.375);
  nlohmann::json before = json;
  before.erase("allowed_at_first");
  EXPECT_EQ(before.get<Comparison>().allowed_at_first, 0) << "records from before the field still parse";
}

TEST(CompareOutputs, AnyValueWhereTheReferenceIsNaNWhenTheRuleFreesIt) {
  HostTensor expected(DType::f32, {3}), got(DType::f32, {3});
  expected.set(0, std::nan(""));
  expected.set(1, 1.0);
  expected.set(2, std::nan(""));
  got.set(0, 0.0);
  got.set(1, 1.0);
  got.set(2, std::nan(""));
  EXPECT_FALSE(compare_outputs(got, expected, 0, 0).passed());
  EXPECT_TRUE(compare_outputs(got, expected, 0, 0, nullptr, NanRule::free_where_reference_is_nan).passed());
  got.set(1, std::nan(""));
  EXPECT_FALSE(compare_outputs(got, expected, 0, 0, nullptr, NanRule::free_where_reference_is_nan).passed())
      << "a NaN where the reference has a number still fails";
}

TEST(CompareOutputs, AtolIsAbsoluteForAnAllZeroReference) {
  EXPECT_TRUE(compare({1e-6f, 0.0f}, {0.0f, 0.0f}, 1e-5, 0).passed());
  EXPECT_FALSE(compare({2e-5f, 0.0f}, {0.0f, 0.0f}, 1e-5, 0).passed());
}

TEST(CompareOutputs, InfinitiesInTheReferenceDoNotWidenTheTolerance) {
  EXPECT_FALSE(compare({kInf, 1.0f, 0.5f}, {kInf, 1.0f, 0.0f}, 0.25, 0).passed());
}

TEST(CompareOutputs, NaNMatchesNaN) {
  const Comparison c = compare({kNaN, 1.0f}, {kNaN, 1.0f}, 0, 0);
  EXPECT_TRUE(c.passed());
}

TEST(CompareOutputs, NaNWhereTheReferenceHasANumberFails) {
  const Comparison c = compare({1.0f, kNaN}, {1.0f, 2.0f}, 1e9, 1e9);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.first_mismatch, 1);
}

TEST(CompareOutputs, ANumberWhereTheReferenceHasNaNFails) {
  EXPECT_FALSE(compare({0.0f}, {kNaN}, 1e9, 1e9).passed());
}

TEST(CompareOutputs, InfinityMatchesOnlyTheSameInfinity) {
  EXPECT_TRUE(compare({kInf, -kInf}, {kInf, -kInf}, 0, 0).passed());
  EXPECT_FALSE(compare({-kInf}, {kInf}, 1e9, 1e9).passed()) << "sign of infinity";
  EXPECT_FALSE(compare({std::numeric_limits<float>::max()}, {kInf}, 1e9, 1e9).passed())
      << "finite vs infinity";
  EXPECT_FALSE(compare({kInf}, {1.0f}, 1e9, 1e9).passed()) << "infinity vs finite";
}

TEST(CompareOutputs, ReportsTheFirstMismatchAndCountsThemAll) {
  const Comparison c = compare({0.0f, 1.0f, 9.0f, 3.0f, 7.0f}, {0.0f, 1.0f, 2.0f, 3.0f, 4.0f}, 1e-6, 0);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.elements, 5);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.first_mismatch, 2);
  EXPECT_EQ(c.got_at_first, 9.0f);
  EXPECT_EQ(c.expected_at_first, 2.0f);
}

TEST(CompareOutputs, TracksMaxAbsoluteAndRelativeError) {
  const Comparison c = compare({1.5f, 10.0f, 0.25f}, {1.0f, 11.0f, 0.0f}, 1, 1);
  EXPECT_TRUE(c.passed());
  EXPECT_DOUBLE_EQ(c.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(c.max_rel_error, 0.5) << "relative error skips zero references";
}

TEST(CompareOutputs, AShorterOutputMismatchesAtItsEnd) {
  const Comparison c = compare({1.0f}, {1.0f, 2.0f}, 0, 0);
  EXPECT_EQ(c.elements, 2);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.first_mismatch, 1);
}

TEST(CompareOutputs, SerialisesNonFiniteNumbersAsStringsSoTheJsonStaysValid) {
  const nlohmann::json json = compare({kNaN}, {kInf}, 0, 0);
  EXPECT_EQ(json.at("mismatches"), 1);
  EXPECT_EQ(json.at("first_mismatch"), 0);
  EXPECT_EQ(json.at("got_at_first"), "nan");
  EXPECT_EQ(json.at("expected_at_first"), "inf");
  EXPECT_TRUE(nlohmann::json::accept(json.dump()));
}

// Tensors of any dtype, compared element by element as numbers.

HostTensor tensor(DType dtype, const std::vector<double>& values) {
  HostTensor t(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

TEST(CompareTensors, I32IsExactWithZeroTolerance) {
  const HostTensor expected = tensor(DType::i32, {-2147483648.0, -7, 0, 2147483647.0});
  EXPECT_TRUE(compare_outputs(expected, expected, 0, 0).passed());
  const Comparison off_by_one =
      compare_outputs(tensor(DType::i32, {-2147483648.0, -7, 1, 2147483647.0}), expected, 0, 0);
  EXPECT_FALSE(off_by_one.passed());
  EXPECT_EQ(off_by_one.mismatches, 1);
  EXPECT_EQ(off_by_one.first_mismatch, 2);
  EXPECT_EQ(off_by_one.got_at_first, 1);
  EXPECT_EQ(off_by_one.expected_at_first, 0);
  EXPECT_EQ(off_by_one.max_abs_error, 1);
  EXPECT_FALSE(
      compare_outputs(tensor(DType::i32, {-2147483647.0, -7, 0, 2147483647.0}), expected, 0, 0).passed())
      << "off by one next to the largest magnitudes";
}

TEST(CompareTensors, UnsignedAndByteIntegersAreExactToo) {
  EXPECT_FALSE(
      compare_outputs(tensor(DType::u32, {4294967294.0}), tensor(DType::u32, {4294967295.0}), 0, 0).passed());
  EXPECT_FALSE(compare_outputs(tensor(DType::i8, {-127}), tensor(DType::i8, {-128}), 0, 0).passed());
  EXPECT_FALSE(compare_outputs(tensor(DType::u8, {254}), tensor(DType::u8, {255}), 0, 0).passed());
  EXPECT_TRUE(compare_outputs(tensor(DType::u8, {0, 255}), tensor(DType::u8, {0, 255}), 0, 0).passed());
}

TEST(CompareTensors, F16WithinItsDefaultToleranceOf1eMinus3Passes) {
  const HostTensor expected = tensor(DType::f16, {1.0, 0.5, -0.25});
  const HostTensor within = tensor(DType::f16, {1.0 + std::ldexp(1.0, -10), 0.5, -0.25});  // off by 0.000977
  EXPECT_TRUE(compare_outputs(within, expected, 1e-3, 1e-3).passed());
  const HostTensor beyond = tensor(DType::f16, {1.0 + std::ldexp(1.0, -7), 0.5, -0.25});  // off by 0.0078
  EXPECT_FALSE(compare_outputs(beyond, expected, 1e-3, 1e-3).passed());
}

TEST(CompareTensors, F16NaNAndInfinityFollowTheFloatRules) {
  const double inf = std::numeric_limits<double>::infinity();
  const HostTensor expected = tensor(DType::f16, {std::nan(""), inf, 1.0});
  EXPECT_TRUE(compare_outputs(expected, expected, 0, 0).passed());
  EXPECT_FALSE(
      compare_outputs(tensor(DType::f16, {std::nan(""), 65504.0, 1.0}), expected, 1e9, 1e9).passed());
}

TEST(CompareTensors, ADtypeMismatchBetweenGotAndExpectedFailsEveryElement) {
  const HostTensor expected = tensor(DType::i32, {1, 2, 3});
  const Comparison c = compare_outputs(tensor(DType::f32, {1, 2, 3}), expected, 1e9, 1e9);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.elements, 3);
  EXPECT_EQ(c.mismatches, 3);
  EXPECT_EQ(c.first_mismatch, 0);
  EXPECT_EQ(compare_outputs(tensor(DType::u32, {1, 2, 3}), expected, 0, 0).mismatches, 3)
      << "even at the same width";
}

TEST(CompareTensors, AShorterTensorMismatchesAtItsEnd) {
  const Comparison c = compare_outputs(tensor(DType::i32, {1}), tensor(DType::i32, {1, 2}), 0, 0);
  EXPECT_EQ(c.elements, 2);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.first_mismatch, 1);
}

}  // namespace
}  // namespace kernelgen

namespace kernelgen {
namespace {

// A dot product in f16, summed in f32 and rounded once: y[0] = sum of x[i] * w[i].
void f16_dot(std::span<const ConstTensorView> inputs, std::span<const TensorView> outputs, const Params&) {
  float sum = 0;
  for (int64_t i = 0; i < inputs[0].size(); ++i)
    sum += static_cast<float>(inputs[0].as<const Eigen::half>()[i]) * static_cast<float>(inputs[1].as<const Eigen::half>()[i]);
  outputs[0].as<Eigen::half>()[0] = Eigen::half(sum);
}

// The terms of an f16 dot product of 300s overflow f16 (2 * 90000 > 65504): they stay infinite, so the element
// is unbounded. An infinite input makes them infinite too, but that says nothing about rounding: they become NaN,
// which the comparison ignores.
TEST(ReferenceMagnitudes, TermsThatOverflowTheDtypeStayInfiniteAndInfiniteInputsMakeThemNaN) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({"name": "dot",
    "inputs": [{"name": "x", "dtype": "f16", "shape": [2]}, {"name": "w", "dtype": "f16", "shape": [2]}],
    "outputs": [{"name": "y", "dtype": "f16", "shape": [1]}]})"));
  TestCase overflow = make_case(spec, "normal", 1);
  overflow.inputs[0].set(0, 300.0);  // x = (300, -300), w = (300, 300): 90000 - 90000
  overflow.inputs[0].set(1, -300.0);
  overflow.inputs[1].set(0, 300.0);
  overflow.inputs[1].set(1, 300.0);
  const auto magnitudes = reference_magnitudes(spec, &f16_dot, overflow);
  ASSERT_EQ(magnitudes.size(), 1u);
  EXPECT_TRUE(std::isinf(magnitudes[0].value(0)));
  EXPECT_EQ(run_reference(spec, &f16_dot, overflow)[0].value(0), 0.0);  // the sum itself cancels to 0

  TestCase infinite = overflow;
  infinite.inputs[0].set(0, HUGE_VAL);
  EXPECT_TRUE(std::isnan(reference_magnitudes(spec, &f16_dot, infinite)[0].value(0)));
}

// An op whose reference module defines KERNELGEN_TERMS: its terms, computed from the case's own inputs (signs
// and all), replace the reference run on the absolute inputs; infinities that an infinite input causes still
// become NaN.
void halve(std::span<const ConstTensorView> inputs, std::span<const TensorView> outputs, const Params&) {
  for (int64_t i = 0; i < inputs[0].size(); ++i) outputs[0].as<float>()[i] = inputs[0].as<const float>()[i] / 2;
}
void thousand_times(std::span<const ConstTensorView> inputs, std::span<const TensorView> outputs, const Params&) {
  for (int64_t i = 0; i < inputs[0].size(); ++i) outputs[0].as<float>()[i] = 1000 * inputs[0].as<const float>()[i];
}

TEST(ReferenceMagnitudes, AnOpsOwnTermsReplaceTheReferenceOnAbsoluteInputs) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({"name": "halve_with_terms",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}], "outputs": [{"name": "y", "dtype": "f32", "shape": [2]}]})"));
  TestCase test_case = make_case(spec, "normal", 1);
  test_case.inputs[0].set(0, -3.0);
  test_case.inputs[0].set(1, 5.0);
  EXPECT_EQ(reference_magnitudes(spec, &halve, test_case)[0].value(0), 1.5) << "no terms registered yet";
  register_terms("halve_with_terms", &thousand_times);
  const auto magnitudes = reference_magnitudes(spec, &halve, test_case);
  EXPECT_EQ(magnitudes[0].value(0), -3000.0);
  EXPECT_EQ(magnitudes[0].value(1), 5000.0);
  test_case.inputs[0].set(1, HUGE_VAL);
  EXPECT_TRUE(std::isnan(reference_magnitudes(spec, &halve, test_case)[0].value(1)));
}

// In ulps of the output's dtype (TOLERANCE <n>ulp), on bf16 given by its bits: 0x3F80 is 1.0, 0x3F81 the next value
// up (1 + 2^-7), 0x3F7F the next one down (1 - 2^-8, in the binade below).

HostTensor bf16_bits(const std::vector<uint16_t>& bits) {
  HostTensor t(DType::bf16, {static_cast<int64_t>(bits.size())});
  std::memcpy(t.bytes.data(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

const Tolerance kHalfUlp{.ulp = 0.5};
const Tolerance kOneUlp{.ulp = 1};

TEST(CompareInUlps, HalfAnUlpLeavesTheCorrectlyRoundedValueAloneAndOneUlpItsNeighbours) {
  const HostTensor expected = bf16_bits({0x3F80, 0x4049, 0xC2C8});
  EXPECT_TRUE(compare_outputs(expected, expected, kHalfUlp).passed());
  const Comparison one_up = compare_outputs(bf16_bits({0x3F80, 0x404A, 0xC2C8}), expected, kHalfUlp);
  EXPECT_FALSE(one_up.passed());
  EXPECT_EQ(one_up.first_mismatch, 1);
  EXPECT_EQ(one_up.ulps_at_first, 1);
  EXPECT_EQ(one_up.allowed_ulps, 0.5);
  EXPECT_TRUE(compare_outputs(bf16_bits({0x3F80, 0x404A, 0xC2C7}), expected, kOneUlp).passed())
      << "a faithful rounding: a neighbour either way";
  EXPECT_FALSE(compare_outputs(bf16_bits({0x3F80, 0x404B, 0xC2C8}), expected, kOneUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x3F80, 0x404B, 0xC2C8}), expected, Tolerance{.ulp = 2.5}).passed());
}

TEST(CompareInUlps, CountsValuesOfTheDtypeAcrossBinadesAndZero) {
  // 1 - 2^-8 is half of 1.0's ulp below it, and one value.
  EXPECT_FALSE(compare_outputs(bf16_bits({0x3F7F}), bf16_bits({0x3F80}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x3F7F}), bf16_bits({0x3F80}), kOneUlp).passed());
  // -0 and +0 are one value; the smallest subnormals either side of them are two apart.
  EXPECT_TRUE(compare_outputs(bf16_bits({0x8000}), bf16_bits({0x0000}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x8001}), bf16_bits({0x0000}), kOneUlp).passed());
  const Comparison across_zero = compare_outputs(bf16_bits({0x8001}), bf16_bits({0x0001}), kOneUlp);
  EXPECT_FALSE(across_zero.passed());
  EXPECT_EQ(across_zero.ulps_at_first, 2);
  // f32 and f16 count their own values.
  const float one_up = std::nextafter(1.0f, 2.0f);
  EXPECT_FALSE(compare_outputs(tensor(DType::f32, {one_up}), tensor(DType::f32, {1.0}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(tensor(DType::f32, {one_up}), tensor(DType::f32, {1.0}), kOneUlp).passed());
  EXPECT_FALSE(compare_outputs(tensor(DType::f16, {1.0 + 1.0 / 1024}), tensor(DType::f16, {1.0}), kHalfUlp).passed());
  // An integer output is exact whatever the tolerance.
  EXPECT_FALSE(compare_outputs(tensor(DType::i32, {8}), tensor(DType::i32, {7}), Tolerance{.ulp = 2}).passed());
}

TEST(CompareInUlps, NaNAndInfinitiesKeepTheirRules) {
  const HostTensor infinity = bf16_bits({0x7F80});
  EXPECT_TRUE(compare_outputs(infinity, infinity, kHalfUlp).passed());
  EXPECT_FALSE(compare_outputs(bf16_bits({0x7F7F}), infinity, Tolerance{.ulp = 4}).passed())
      << "the largest finite value is not an infinity, one value below it or not";
  EXPECT_FALSE(compare_outputs(infinity, bf16_bits({0x7F7F}), Tolerance{.ulp = 4}).passed());
  EXPECT_FALSE(compare_outputs(bf16_bits({0x7FC0}), bf16_bits({0x3F80}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x7FC0}), bf16_bits({0xFFC1}), kHalfUlp).passed()) << "any NaN meets NaN";
  EXPECT_FALSE(compare_outputs(bf16_bits({0x3F80}), bf16_bits({0x7FC0}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x3F80}), bf16_bits({0x7FC0}), kHalfUlp, nullptr,
                              NanRule::free_where_reference_is_nan)
                  .passed());
}

// Vulkan lets a device flush subnormals, in what an operation reads and what it writes.
TEST(CompareInUlps, AFlushedSubnormalPassesAndOnlyThat) {
  // A subnormal result written as zero, of either sign.
  EXPECT_TRUE(compare_outputs(bf16_bits({0x0000, 0x0000}), bf16_bits({0x0003, 0x8005}), kHalfUlp).passed());
  EXPECT_FALSE(compare_outputs(bf16_bits({0x0004}), bf16_bits({0x0003}), kHalfUlp).passed()) << "not a flush";
  // Two subnormals that add up to the smallest normal value (0x0080): 0 where the device flushed what it read,
  // which the reference on the flushed inputs gives; nothing else does.
  const HostTensor flushed = bf16_bits({0x0000});
  EXPECT_FALSE(compare_outputs(bf16_bits({0x0000}), bf16_bits({0x0080}), kHalfUlp).passed());
  EXPECT_TRUE(compare_outputs(bf16_bits({0x0000}), bf16_bits({0x0080}), kHalfUlp, nullptr, NanRule::must_match,
                              &flushed)
                  .passed());
  EXPECT_FALSE(compare_outputs(bf16_bits({0x0040}), bf16_bits({0x0080}), kHalfUlp, nullptr, NanRule::must_match,
                               &flushed)
                   .passed());
  // The flushed reference's own subnormal results count as zeros.
  const HostTensor flushed_subnormal = bf16_bits({0x0002});
  EXPECT_TRUE(compare_outputs(bf16_bits({0x8000}), bf16_bits({0x0081}), kHalfUlp, nullptr, NanRule::must_match,
                              &flushed_subnormal)
                  .passed());
}

TEST(CompareInUlps, FlushesSubnormalsToZerosOfTheirSign) {
  const HostTensor flushed = flush_subnormals(bf16_bits({0x0001, 0x807F, 0x0080, 0x3F80}));
  EXPECT_EQ(flushed, bf16_bits({0x0000, 0x8000, 0x0080, 0x3F80}));
  EXPECT_TRUE(has_subnormal(bf16_bits({0x3F80, 0x807F})));
  EXPECT_FALSE(has_subnormal(bf16_bits({0x3F80, 0x0080, 0x8000})));
  EXPECT_TRUE(has_subnormal(tensor(DType::f32, {std::numeric_limits<float>::denorm_min()})));
  EXPECT_FALSE(has_subnormal(tensor(DType::f32, {std::numeric_limits<float>::min()})));
  EXPECT_EQ(flush_subnormals(tensor(DType::f32, {-std::numeric_limits<float>::denorm_min()})).value(0), 0.0);
  EXPECT_TRUE(std::signbit(flush_subnormals(tensor(DType::f32, {-std::numeric_limits<float>::denorm_min()})).value(0)));
  EXPECT_FALSE(has_subnormal(tensor(DType::i32, {1})));
}

TEST(CompareInUlps, ARejectionSaysHowManyUlpsOffAndWhatWasAllowed) {
  const Comparison c = compare_outputs(bf16_bits({0x3F81}), bf16_bits({0x3F80}), kHalfUlp);
  EXPECT_EQ(mismatch_detail(c, "z at rows=1"),
            "1 of 1 elements of z at rows=1 differ from the reference; first at index 0: got 1.007812, expected 1 (off "
            "by 1 ulp, allowed 0.5 ulp: the value rounded to nearest, ties to even)");
  const nlohmann::json json = c;
  EXPECT_EQ(json.at("allowed_ulps"), 0.5);
  EXPECT_EQ(json.at("ulps_at_first"), 1);
  EXPECT_EQ(json.get<Comparison>().ulps_at_first, 1);
  EXPECT_FALSE(nlohmann::json(compare_outputs(bf16_bits({0x3F81}), bf16_bits({0x3F80}), 0, 0)).contains("allowed_ulps"))
      << "records of atol and rtol stay as they were";
}

}  // namespace
}  // namespace kernelgen
