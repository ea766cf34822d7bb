// The roofline chart: where each kernel stands against the device's ceilings, and the SVG that draws it.
#include "kernelgen/report/roofline_svg.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A device with 100 GB/s and 1000 GFLOP/s: its ridge point is at 10 FLOP/byte.
const DevicePeaks kPeaks{"Fixture GPU | driver | Vulkan 1.3.0", 100.0, 1000.0};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Roofline, AKernelWithFlopsStandsAtItsIntensityAndFlopRate) {
  const RooflineChart chart = layout_roofline({{"matmul", "", 50.0, 400.0}}, kPeaks);
  ASSERT_EQ(chart.points.size(), 1u);
  EXPECT_DOUBLE_EQ(chart.points[0].intensity, 8.0) << "400 GFLOP/s over 50 GB/s";
  EXPECT_DOUBLE_EQ(chart.points[0].gflops, 400.0);
  EXPECT_FALSE(chart.points[0].by_bandwidth);
}

TEST(Roofline, TheAxesSpanWholeDecadesAroundThePointsAndBothCeilings) {
  const RooflineChart chart = layout_roofline({{"a", "", 50.0, 25.0}, {"b", "", 5.0, 300.0}}, kPeaks);
  // Intensities 0.5 and 60, ridge 10: whole decades with at least a factor of 3 to spare on either side.
  EXPECT_DOUBLE_EQ(chart.x_min, 0.1);
  EXPECT_DOUBLE_EQ(chart.x_max, 1000.0);
  // The lowest is the bandwidth ceiling at x_min (100 GB/s * 0.1 = 10 GFLOP/s), the highest the compute
  // ceiling.
  EXPECT_DOUBLE_EQ(chart.y_min, 10.0);
  EXPECT_DOUBLE_EQ(chart.y_max, 10000.0);
}

TEST(Roofline, AKernelWithoutFlopsStandsOnTheLeftEdgeAtItsFractionOfTheBandwidthCeiling) {
  const RooflineChart chart = layout_roofline({{"matmul", "", 50.0, 400.0}, {"relu", "", 25.0, 0.0}}, kPeaks);
  ASSERT_EQ(chart.points.size(), 2u);
  const RooflinePoint& relu = chart.points[1];
  EXPECT_TRUE(relu.by_bandwidth);
  EXPECT_DOUBLE_EQ(relu.intensity, chart.x_min);
  // A quarter of the peak bandwidth: a quarter of the bandwidth ceiling's height there.
  EXPECT_DOUBLE_EQ(relu.gflops / (kPeaks.gbytes_per_second * chart.x_min), 0.25);
}

TEST(Roofline, AKernelWithoutATimingIsLeftOut) {
  const RooflineChart chart =
      layout_roofline({{"untimed", "", 0.0, 0.0}, {"relu", "", 25.0, 0.0}}, std::nullopt);
  ASSERT_EQ(chart.points.size(), 1u);
  EXPECT_EQ(chart.points[0].label, "relu");
}

TEST(Roofline, TheSvgHasTheAxesTheRoofAndOneLabelledCirclePerKernel) {
  const std::string svg =
      roofline_svg(layout_roofline({{"matmul", "80 us", 50.0, 400.0}, {"relu", "20 us", 25.0, 0.0}}, kPeaks));
  EXPECT_EQ(svg.rfind("<svg class=\"roofline\"", 0), 0u) << svg;
  EXPECT_THAT(svg, HasSubstr(">arithmetic intensity (FLOP/byte)</text>"));
  EXPECT_THAT(svg, HasSubstr(">GFLOP/s</text>"));
  EXPECT_EQ(count(svg, "<polyline class=\"ceiling\""), 1u);
  EXPECT_THAT(svg, HasSubstr("copy bandwidth 100.0 GB/s"));
  EXPECT_THAT(svg, HasSubstr("f32 FMA 1000.0 GFLOP/s"));
  EXPECT_EQ(count(svg, "<circle class=\"kernel\""), 1u);
  EXPECT_EQ(count(svg, "<circle class=\"kernel by-bandwidth\""), 1u);
  EXPECT_THAT(svg, HasSubstr("<title>matmul: 80 us</title>"));
  EXPECT_THAT(svg, HasSubstr(">matmul</text>"));
  EXPECT_THAT(svg, HasSubstr(">relu</text>"));
  // Decade ticks, labelled as numbers: 1 and 100 FLOP/byte on either side of matmul's 8 and the ridge's 10.
  EXPECT_THAT(svg, HasSubstr(">1</text>"));
  EXPECT_THAT(svg, HasSubstr(">100</text>"));
}

TEST(Roofline, TheKernelOnTheRidgeIsDrawnOnTheRoofsCorner) {
  // At 100 GB/s and 1000 GFLOP/s a kernel reaches both peaks: its circle is the roof's middle point.
  const std::string svg = roofline_svg(layout_roofline({{"perfect", "", 100.0, 1000.0}}, kPeaks));
  std::smatch roof, circle;
  ASSERT_TRUE(std::regex_search(svg, roof, std::regex("points=\"[0-9.]+,[0-9.]+ ([0-9.]+),([0-9.]+) ")));
  ASSERT_TRUE(std::regex_search(svg, circle, std::regex("cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"")));
  EXPECT_EQ(roof[1], circle[1]);
  EXPECT_EQ(roof[2], circle[2]);
}

TEST(Roofline, WithoutPeaksThereIsNoRoof) {
  const std::string svg = roofline_svg(layout_roofline({{"matmul", "", 50.0, 400.0}}, std::nullopt));
  EXPECT_THAT(svg, Not(HasSubstr("ceiling")));
  EXPECT_EQ(count(svg, "<circle class=\"kernel\""), 1u);
}

TEST(Roofline, LabelsAreEscaped) {
  const std::string svg = roofline_svg(layout_roofline({{"<b>op</b>", "a & b", 50.0, 400.0}}, kPeaks));
  EXPECT_THAT(svg, HasSubstr(">&lt;b&gt;op&lt;/b&gt;</text>"));
  EXPECT_THAT(svg, HasSubstr("<title>&lt;b&gt;op&lt;/b&gt;: a &amp; b</title>"));
  EXPECT_THAT(svg, Not(HasSubstr("<b>")));
}

TEST(Roofline, LabelsOfKernelsThatCrowdTogetherDoNotOverlap) {
  const std::string svg = roofline_svg(
      layout_roofline({{"gelu", "", 25.0, 0.0}, {"silu", "", 25.5, 0.0}, {"relu", "", 26.0, 0.0}}, kPeaks));
  std::vector<double> ys;
  const std::regex label("<text class=\"kernel-label\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    ys.push_back(std::stod((*it)[1]));
  ASSERT_EQ(ys.size(), 3u);
  std::sort(ys.begin(), ys.end());
  EXPECT_GE(ys[1] - ys[0], 12.0);
  EXPECT_GE(ys[2] - ys[1], 12.0);
  EXPECT_GE(count(svg, "<line class=\"leader\""), 1u) << "a label moved off its point points back to it";
}

TEST(Roofline, LabelsStayInsideThePlotWhenTheirKernelsCrowdItsBottom) {
  // Kernels at the very bottom of the chart: labels that cannot go down go up.
  std::vector<RooflineKernel> kernels;
  for (const char* op : {"a", "b", "c", "d", "e"}) kernels.push_back({op, "", 10.0, 0.0});
  kernels.push_back({"fast", "", 1000.0, 0.0});
  const std::string svg = roofline_svg(layout_roofline(kernels, std::nullopt));
  std::vector<double> ys;
  const std::regex label("<text class=\"kernel-label\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    ys.push_back(std::stod((*it)[1]));
  ASSERT_EQ(ys.size(), 6u);
  std::sort(ys.begin(), ys.end());
  for (size_t i = 1; i < ys.size(); ++i) EXPECT_GE(ys[i] - ys[i - 1], 12.0) << svg;
  EXPECT_LE(ys.back(), 530.0) << "the plot's bottom edge";
}

}  // namespace
}  // namespace kernelgen
