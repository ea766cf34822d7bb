#pragma once
#include <optional>
#include <string>
#include <vector>

#include "kernelgen/optimise/device_peaks.hpp"

namespace kernelgen {

// One timed kernel, as the roofline needs it: what it achieved at the op's timed size.
struct RooflineKernel {
  std::string label;   // the op
  std::string detail;  // the hover text: time, rates, % of peak
  double gbytes_per_second = 0;
  double gflops = 0;  // 0: the op declares no FLOPS
};

// Where a kernel stands, in the chart's units: FLOP per byte across, GFLOP/s up.
struct RooflinePoint {
  std::string label, detail;
  double intensity = 0;
  double gflops = 0;
  // The op declares no FLOPS, so it has no arithmetic intensity. It stands on the chart's left edge, x_min,
  // at gbytes_per_second * x_min: where the bandwidth ceiling there would be for its own bandwidth, so its
  // distance below the ceiling is its fraction of the peak bandwidth, as for any memory-bound kernel.
  bool by_bandwidth = false;
};

// A log-log roofline: the axes span whole decades around every point and both ceilings.
struct RooflineChart {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  std::optional<DevicePeaks> peaks;  // the ceilings; none drawn when the peaks were not measured
  std::vector<RooflinePoint> points;
};

// Places the kernels. One without a positive bandwidth (no timing) has no place and is left out.
RooflineChart layout_roofline(const std::vector<RooflineKernel>& kernels,
                              const std::optional<DevicePeaks>& peaks);

// The chart as an <svg> element for an HTML page (no namespace needed there, no fetches): a decade grid, the
// axis labels, the bandwidth and compute ceilings as one roof, and one labelled <circle class="kernel"> per
// point, filled when placed by its FLOP rate, hollow when placed by its bandwidth.
std::string roofline_svg(const RooflineChart& chart);

}  // namespace kernelgen
