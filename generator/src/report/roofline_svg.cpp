#include "kernelgen/report/roofline_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "kernelgen/report/format_number.hpp"
#include "kernelgen/report/markup.hpp"

namespace kernelgen {

namespace {

// The picture, in pixels: the plot area inside margins wide enough for the tick and axis labels.
constexpr double kWidth = 960, kHeight = 600, kLeft = 80, kRight = 30, kTop = 30, kBottom = 70;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;
constexpr double kLabelHeight = 12, kCharWidth = 7;  // of the 12 px labels, roughly

std::string px(double value) {
  return format_number("%.1f", value);
}

int decade(double value) {
  return static_cast<int>(std::floor(std::log10(value)));
}

bool positive(double value) {
  return std::isfinite(value) && value > 0;
}

std::string decade_label(int exponent) {
  if (exponent >= -3 && exponent <= 4) return format_number("%g", std::pow(10.0, exponent));
  return "1e" + std::to_string(exponent);
}

// Data units to pixels, logarithmic both ways.
struct Scale {
  const RooflineChart& chart;
  double x(double value) const {
    return kLeft + std::log10(value / chart.x_min) / std::log10(chart.x_max / chart.x_min) * kPlotWidth;
  }
  double y(double value) const {
    return kTop + kPlotHeight -
           std::log10(value / chart.y_min) / std::log10(chart.y_max / chart.y_min) * kPlotHeight;
  }
};

bool has_roof(const RooflineChart& chart) {
  return chart.peaks && positive(chart.peaks->gbytes_per_second) && positive(chart.peaks->gflops);
}

std::string grid(const RooflineChart& chart, const Scale& scale) {
  std::string svg = "<rect x=\"" + px(kLeft) + "\" y=\"" + px(kTop) + "\" width=\"" + px(kPlotWidth) +
                    "\" height=\"" + px(kPlotHeight) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (int e = decade(chart.x_min); e <= decade(chart.x_max); ++e) {
    const std::string x = px(scale.x(std::pow(10.0, e)));
    svg += "<line x1=\"" + x + "\" y1=\"" + px(kTop) + "\" x2=\"" + x + "\" y2=\"" + px(kTop + kPlotHeight) +
           "\" stroke=\"#ddd\"/>\n<text x=\"" + x + "\" y=\"" + px(kTop + kPlotHeight + 18) +
           "\" text-anchor=\"middle\">" + decade_label(e) + "</text>\n";
  }
  for (int e = decade(chart.y_min); e <= decade(chart.y_max); ++e) {
    const std::string y = px(scale.y(std::pow(10.0, e)));
    svg += "<line x1=\"" + px(kLeft) + "\" y1=\"" + y + "\" x2=\"" + px(kLeft + kPlotWidth) + "\" y2=\"" + y +
           "\" stroke=\"#ddd\"/>\n<text x=\"" + px(kLeft - 8) + "\" y=\"" +
           px(scale.y(std::pow(10.0, e)) + 4) + "\" text-anchor=\"end\">" + decade_label(e) + "</text>\n";
  }
  svg += "<text class=\"axis-label\" x=\"" + px(kLeft + kPlotWidth / 2) + "\" y=\"" + px(kHeight - 22) +
         "\" text-anchor=\"middle\" font-size=\"14\">arithmetic intensity (FLOP/byte)</text>\n";
  svg += "<text class=\"axis-label\" transform=\"translate(22 " + px(kTop + kPlotHeight / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">GFLOP/s</text>\n";
  return svg;
}

// The roof: the bandwidth ceiling (GB/s times FLOP/byte) up to the ridge point, the compute ceiling after it.
std::string roof(const RooflineChart& chart, const Scale& scale) {
  if (!has_roof(chart)) return "";
  const DevicePeaks& peaks = *chart.peaks;
  const double ridge = peaks.gflops / peaks.gbytes_per_second;
  std::string svg =
      "<polyline class=\"ceiling\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2.5\" points=\"" +
      px(scale.x(chart.x_min)) + "," + px(scale.y(peaks.gbytes_per_second * chart.x_min)) + " " +
      px(scale.x(ridge)) + "," + px(scale.y(peaks.gflops)) + " " + px(scale.x(chart.x_max)) + "," +
      px(scale.y(peaks.gflops)) + "\"/>\n";
  // The bandwidth label runs along its slope, a fifth of the way to the ridge.
  const double at = chart.x_min * std::pow(ridge / chart.x_min, 0.2);
  const double angle =
      -std::atan2(scale.y(at) - scale.y(at * 10), scale.x(at * 10) - scale.x(at)) * 180 / std::numbers::pi;
  svg += "<text class=\"ceiling-label\" fill=\"#c0392b\" transform=\"translate(" + px(scale.x(at)) + " " +
         px(scale.y(peaks.gbytes_per_second * at) - 8) + ") rotate(" + format_number("%.1f", angle) +
         ")\">copy bandwidth " + format_number("%.1f", peaks.gbytes_per_second) + " GB/s</text>\n";
  svg += "<text class=\"ceiling-label\" fill=\"#c0392b\" x=\"" + px(kLeft + kPlotWidth - 8) + "\" y=\"" +
         px(scale.y(peaks.gflops) - 8) + "\" text-anchor=\"end\">f32 FMA " +
         format_number("%.1f", peaks.gflops) + " GFLOP/s</text>\n";
  return svg;
}

struct Box {
  double left, top, right, bottom;
  bool overlaps(const Box& other) const {
    return left < other.right && other.left < right && top < other.bottom && other.top < bottom;
  }
  Box moved(double dy) const { return {left, top + dy, right, bottom + dy}; }
};

// Where a point's label goes: beside it, or (kernels of similar ops crowd together, those without FLOPS all
// on one edge) the nearest row above or below that clears the labels placed before it and stays in the plot.
Box label_box(double cx, double cy, size_t characters, const std::vector<Box>& placed) {
  const double width = kCharWidth * static_cast<double>(characters);
  const bool left_side = cx + 8 + width > kLeft + kPlotWidth;  // too near the right edge: label to the left
  const Box beside{left_side ? cx - 8 - width : cx + 8, cy - 8, 0, 0};
  const Box first{beside.left, beside.top, beside.left + width, beside.top + kLabelHeight};
  for (int step = 0; step < 40; ++step) {
    const Box box = first.moved((step % 2 ? 1 : -1) * ((step + 1) / 2) * kLabelHeight);
    const bool inside = box.top >= kTop && box.bottom <= kTop + kPlotHeight;
    if (inside &&
        std::none_of(placed.begin(), placed.end(), [&](const Box& other) { return box.overlaps(other); }))
      return box;
  }
  return first;
}

// A circle per point, then the labels; a label moved away from its point is joined to it by a thin line.
std::string points(const RooflineChart& chart, const Scale& scale) {
  std::vector<const RooflinePoint*> order;
  for (const RooflinePoint& point : chart.points) order.push_back(&point);
  std::stable_sort(order.begin(), order.end(), [&](const RooflinePoint* a, const RooflinePoint* b) {
    return scale.y(a->gflops) < scale.y(b->gflops);
  });
  std::string circles, labels;
  std::vector<Box> placed;
  for (const RooflinePoint* point : order) {
    const double cx = scale.x(point->intensity), cy = scale.y(point->gflops);
    circles +=
        std::string("<circle class=\"kernel") + (point->by_bandwidth ? " by-bandwidth" : "") + "\" cx=\"" +
        px(cx) + "\" cy=\"" + px(cy) + "\" r=\"5\" " +
        (point->by_bandwidth ? "fill=\"#fff\" stroke=\"#e67e22\"" : "fill=\"#2471a3\" stroke=\"#1b4f72\"") +
        " stroke-width=\"2\"><title>" + escape_markup(point->label + ": " + point->detail) +
        "</title></circle>\n";
    const Box box = label_box(cx, cy, point->label.size(), placed);
    placed.push_back(box);
    const double middle = (box.top + box.bottom) / 2;
    if (std::abs(middle - cy) > kLabelHeight / 2) {
      const double end = box.left > cx ? box.left - 1 : box.right + 1;
      labels += "<line class=\"leader\" x1=\"" + px(cx) + "\" y1=\"" + px(cy) + "\" x2=\"" + px(end) +
                "\" y2=\"" + px(middle) + "\" stroke=\"#999\" stroke-width=\"0.75\"/>\n";
    }
    labels += "<text class=\"kernel-label\" x=\"" + px(box.left) + "\" y=\"" + px(box.bottom - 2) + "\">" +
              escape_markup(point->label) + "</text>\n";
  }
  return circles + labels;
}

}  // namespace

RooflineChart layout_roofline(const std::vector<RooflineKernel>& kernels,
                              const std::optional<DevicePeaks>& peaks) {
  RooflineChart chart;
  chart.peaks = peaks;
  std::vector<const RooflineKernel*> placed;
  for (const RooflineKernel& kernel : kernels)
    if (positive(kernel.gbytes_per_second)) placed.push_back(&kernel);

  // Across: every intensity and the ridge point, to whole decades with room of at least a factor of 3 on the
  // left (where the kernels without FLOPS stand) and on the right (for the compute ceiling).
  double low = 0, high = 0;
  const auto widen = [](double& low, double& high, double value) {
    low = low > 0 ? std::min(low, value) : value;
    high = std::max(high, value);
  };
  for (const RooflineKernel* kernel : placed)
    if (positive(kernel->gflops)) widen(low, high, kernel->gflops / kernel->gbytes_per_second);
  if (has_roof(chart)) widen(low, high, peaks->gflops / peaks->gbytes_per_second);
  if (low == 0) low = high = 1;
  chart.x_min = std::pow(10.0, decade(low / 3));
  chart.x_max = std::pow(10.0, decade(high * 3) + 1);

  for (const RooflineKernel* kernel : placed) {
    RooflinePoint point{kernel->label, kernel->detail, 0, 0, !positive(kernel->gflops)};
    point.intensity = point.by_bandwidth ? chart.x_min : kernel->gflops / kernel->gbytes_per_second;
    point.gflops = point.by_bandwidth ? kernel->gbytes_per_second * chart.x_min : kernel->gflops;
    chart.points.push_back(point);
  }

  // Up: every point and both ceilings, to whole decades with room above the highest.
  low = high = 0;
  for (const RooflinePoint& point : chart.points) widen(low, high, point.gflops);
  if (has_roof(chart)) {
    widen(low, high, peaks->gbytes_per_second * chart.x_min);
    widen(low, high, peaks->gflops);
  }
  if (low == 0) low = high = 1;
  chart.y_min = std::pow(10.0, decade(low));
  chart.y_max = std::pow(10.0, decade(high) + 1);
  return chart;
}

std::string roofline_svg(const RooflineChart& chart) {
  const Scale scale{chart};
  return "<svg class=\"roofline\" viewBox=\"0 0 " + px(kWidth) + " " + px(kHeight) + "\" width=\"" +
         px(kWidth) + "\" height=\"" + px(kHeight) +
         "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"roofline chart\">\n" +
         grid(chart, scale) + roof(chart, scale) + points(chart, scale) + "</svg>\n";
}

}  // namespace kernelgen
