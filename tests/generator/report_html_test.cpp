// `kernelgen report --html` over the checked-in fixture log (tests/generator/candidate_log): a page that
// fetches nothing, with a roofline per device and a row per op, its text escaped.
#include "kernelgen/report/report_html.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernelgen/report/log_commands.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kFixtureLog = KERNELGEN_TEST_CANDIDATE_LOG;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, IsOneSelfContainedPage) {
  const std::string page = report_html(kFixtureLog);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(page, "</html>"), 1u);
  EXPECT_THAT(page, HasSubstr("<meta charset=\"utf-8\">"));
  // Nothing to fetch: no URL of any scheme, no external script, style sheet, image or font.
  for (const char* fetch : {"http:", "https:", "//", "src=", "href=", "url(", "@import", "<link", "<script"})
    EXPECT_THAT(page, Not(HasSubstr(fetch))) << fetch;
}

TEST(ReportHtml, HasARooflineForTheDeviceWithItsMeasuredCeilings) {
  const std::string page = report_html(kFixtureLog);
  EXPECT_THAT(page, HasSubstr("<h2>Roofline: Fixture GPU</h2>"));
  EXPECT_EQ(count(page, "<svg class=\"roofline\""), 1u);
  EXPECT_THAT(page, HasSubstr("copy bandwidth 20.0 GB/s"));
  EXPECT_THAT(page, HasSubstr("f32 FMA 100.0 GFLOP/s"));
  // matmul by its FLOP rate, relu (no FLOPS) by its bandwidth; softmax has no correct kernel to place.
  EXPECT_EQ(count(page, "<circle class=\"kernel\""), 1u);
  EXPECT_EQ(count(page, "<circle class=\"kernel by-bandwidth\""), 1u);
  EXPECT_THAT(
      page, HasSubstr("<title>matmul: 80.0 us at m=256 k=256 n=256, 10.0 GB/s, 40.0 GFLOP/s, 50.0% of peak"));
}

TEST(ReportHtml, HasARowPerOpWithTheSummarysFigures) {
  const std::string page = report_html(kFixtureLog);
  EXPECT_EQ(count(page, "<tr>"), 1u + report_summary(kFixtureLog).size()) << "the header and a row per op";
  for (const char* column : {"op", "status", "model", "correct/candidates", "rounds", "tokens", "cost",
                             "time", "GB/s", "GFLOP/s", "% of peak", "speed-up"})
    EXPECT_THAT(page, HasSubstr(std::string("<th>") + column + "</th>"));
  EXPECT_THAT(page,
              HasSubstr("<tr><td>matmul</td><td class=\"correct\">correct</td><td>openai/gpt-test</td>"));
  EXPECT_THAT(page, HasSubstr("<td class=\"number\" title=\"timed at m=256 k=256 n=256\">80.0 us</td>"));
  EXPECT_THAT(page, HasSubstr("<td class=\"number\">50.0%</td>"));
  EXPECT_THAT(page, HasSubstr("<td class=\"number\">$0.0030</td>"));
  EXPECT_THAT(page, HasSubstr("<tr><td>softmax</td><td class=\"rejected\">no correct kernel</td>"));
}

TEST(ReportHtml, RatesKeepThreeSignificantFiguresAtMost) {
  json summary = report_summary(kFixtureLog);
  summary[0]["gbytes_per_second"] = 0.01234;  // lavapipe moves some ops' bytes at a few MB/s
  summary[0]["gflops"] = 1234.5;
  const test::ScratchDir dir;
  const std::string page = report_html(summary, {}, dir.path());
  EXPECT_THAT(page, HasSubstr("<td class=\"number\">0.012</td><td class=\"number\">1234</td>"));
  EXPECT_THAT(page, HasSubstr("<title>relu: 20.0 us at batch=64, 5.0 GB/s, 25.0% of peak</title>"))
      << "no GFLOP/s for an op without FLOPS";
}

TEST(ReportHtml, EscapesTheLogsText) {
  const std::string page = report_html(kFixtureLog);
  EXPECT_THAT(page, HasSubstr("<td>replay/&lt;b&gt;odd&lt;/b&gt;&amp;name.json</td>"));
  EXPECT_THAT(page, Not(HasSubstr("<b>")));
}

TEST(ReportHtml, SaysWhenADevicesPeaksWereNotMeasured) {
  const test::ScratchDir dir;
  const std::string page = report_html(report_summary(kFixtureLog), {}, dir.path());
  EXPECT_THAT(page, HasSubstr("peaks were not measured"));
  EXPECT_THAT(page, Not(HasSubstr("class=\"ceiling\"")));
  EXPECT_EQ(count(page, "<circle class=\"kernel"), 2u) << "the kernels are placed all the same";
}

TEST(ReportHtml, AnEmptyLogGivesAPageThatSaysSo) {
  const test::ScratchDir dir;
  const std::string page = report_html(dir.path());
  EXPECT_THAT(page, HasSubstr("No records in this log."));
  EXPECT_THAT(page, Not(HasSubstr("<svg")));
}

}  // namespace
}  // namespace kernelgen
