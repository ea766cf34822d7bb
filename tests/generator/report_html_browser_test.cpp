// `kernelgen report --html` as a browser shows it: the fixture log's page rendered by headless Chromium,
// offline, its DOM read back and its screenshot decoded. Skipped, and reported as skipped, only where
// chromium is absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>

#include <cstdlib>
#include <regex>
#include <set>

#include "kernelgen/report/log_commands.hpp"
#include "kernelgen/report/report_html.hpp"
#include "kernelgen/store/files.hpp"
#include "scratch_dir.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path kFixtureLog = KERNELGEN_TEST_CANDIDATE_LOG;
constexpr const char* kChromium = KERNELGEN_TEST_CHROMIUM;  // empty when configure found none

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs headless Chromium on the page with a fresh profile and everything that would reach the network off;
// `output` is --dump-dom's or --screenshot=... Returns what it printed, and fails the test if it failed.
std::string chromium(const test::ScratchDir& dir, const std::filesystem::path& page,
                     const std::string& output, const std::string& profile) {
  const auto log = dir.path() / (profile + ".log");
  const std::string command = "timeout 120 '" + std::string(kChromium) +
                              "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                              "--disable-background-networking --disable-component-update --disable-sync "
                              "--user-data-dir='" +
                              (dir.path() / profile).string() + "' " + output +
                              " --window-size=1200,1600 'file://" + page.string() + "' > '" + log.string() +
                              "' 2>&1";
  const int status = std::system(command.c_str());
  const std::string printed = std::filesystem::exists(log) ? read_file(log) : "";
  EXPECT_EQ(status, 0) << command << "\n" << printed;
  return printed;
}

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

Image read_png(const std::filesystem::path& file) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  Image image;
  if (!png_image_begin_read_from_file(&png, file.c_str())) {
    ADD_FAILURE() << file << ": " << png.message;
    return image;
  }
  png.format = PNG_FORMAT_RGBA;
  image.rgba.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) {
    ADD_FAILURE() << file << ": " << png.message;
    return image;
  }
  image.width = png.width;
  image.height = png.height;
  return image;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(kChromium).empty())
      GTEST_SKIP() << "chromium was not found when this build was configured (apt-get install chromium, then "
                      "reconfigure): the HTML report was not rendered";
    write_file_atomic(page, report_html(kFixtureLog));
  }

  test::ScratchDir dir;
  std::filesystem::path page = dir.path() / "report.html";
};

TEST_F(ReportInBrowser, TheDomHasTheChartAndTheTable) {
  const std::string printed = chromium(dir, page, "--dump-dom", "dom");
  const size_t start = printed.find("<html");
  ASSERT_NE(start, std::string::npos) << printed;
  const std::string dom = printed.substr(start);
  // The parser made an SVG element of the chart, with its axis labels, a roof and one circle per timed op.
  EXPECT_EQ(count(dom, "<svg class=\"roofline\""), 1u);
  EXPECT_THAT(dom, HasSubstr(">arithmetic intensity (FLOP/byte)</text>"));
  EXPECT_THAT(dom, HasSubstr(">GFLOP/s</text>"));
  EXPECT_EQ(count(dom, "<polyline class=\"ceiling\""), 1u);
  EXPECT_EQ(count(dom, "<circle class=\"kernel"), 2u) << "matmul and relu; softmax has no correct kernel";
  EXPECT_THAT(dom, HasSubstr(">matmul</text>"));
  EXPECT_THAT(dom, HasSubstr(">relu</text>"));
  // The table: a header and a row per op, the escaped model shown as text, not made into an element.
  EXPECT_EQ(count(dom, "<tr>"), 1u + report_summary(kFixtureLog).size());
  EXPECT_THAT(dom, HasSubstr("<td>replay/&lt;b&gt;odd&lt;/b&gt;&amp;name.json</td>"));
  EXPECT_THAT(dom, Not(HasSubstr("<b>")));
}

TEST_F(ReportInBrowser, TheScreenshotShowsMoreThanABlankPage) {
  const auto png = dir.path() / "report.png";
  chromium(dir, page, "--screenshot=" + png.string(), "screenshot");
  const Image image = read_png(png);
  ASSERT_EQ(image.width, 1200u);
  ASSERT_EQ(image.height, 1600u);
  // Text, grid, roof and points: many colours, and a good share of the page not background white.
  std::set<uint32_t> colours;
  size_t inked = 0;
  for (size_t at = 0; at + 3 < image.rgba.size(); at += 4) {
    const uint8_t r = image.rgba[at], g = image.rgba[at + 1], b = image.rgba[at + 2];
    colours.insert(uint32_t{r} << 16 | uint32_t{g} << 8 | b);
    if (r < 200 || g < 200 || b < 200) ++inked;
  }
  EXPECT_GT(colours.size(), 50u);
  EXPECT_GT(inked, image.rgba.size() / 4 / 100) << "more than 1% of the pixels";
  // The roof's red (#c0392b) and the filled point's blue (#2471a3) were painted.
  EXPECT_TRUE(colours.count(0xc0392b)) << "the ceilings";
  EXPECT_TRUE(colours.count(0x2471a3)) << "matmul's point";
}

}  // namespace
}  // namespace kernelgen
