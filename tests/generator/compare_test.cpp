// compare_outputs: |got - ref| <= atol * scale + rtol * |ref|, scale = the output's largest finite |ref| (or
// 1), NaN only meets NaN, an infinity only the same infinity.
#include "kernelgen/validation/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
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
  // allowed: 0.25 * 1 (scale) + 0.25 * 1 = 0.5
  EXPECT_TRUE(compare({1.5f}, {1.0f}, 0.25, 0.25).passed());
  EXPECT_FALSE(compare({1.5001f}, {1.0f}, 0.25, 0.25).passed());
}

TEST(CompareOutputs, AtolScalesWithTheLargestMagnitudeOfTheOutput) {
  // Element 1 is off by 0.5: too much next to an output of magnitude 1, fine next to one of 1000.
  EXPECT_FALSE(compare({1.0f, 0.5f}, {1.0f, 0.0f}, 1e-3, 0).passed());
  EXPECT_TRUE(compare({1000.0f, 0.5f}, {1000.0f, 0.0f}, 1e-3, 0).passed());
  EXPECT_TRUE(compare({-1000.0f, 0.5f}, {-1000.0f, 0.0f}, 1e-3, 0).passed()) << "scale uses the magnitude";
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
