#include "block_check.hpp"

#include <cmath>
#include <sstream>

namespace block {

std::vector<StageResult> check_block(const std::vector<Stage>& reference,
                                     const std::function<const std::vector<float>&(const std::string&)>& gpu_stage) {
  std::vector<StageResult> results;
  for (const Stage& stage : reference) {
    const std::vector<float>& gpu = gpu_stage(stage.name);
    StageResult r{stage.name};
    const double scale = stage.value.cwiseAbs().maxCoeff();
    const Eigen::Index cols = stage.value.cols();
    for (Eigen::Index i = 0; i < stage.value.size(); ++i) {
      const double want = stage.value.data()[i], got = gpu.at(static_cast<size_t>(i));
      const double allowed = 2.0 * stage.bound.data()[i];
      const double error = std::abs(got - want);
      const bool ok = std::isfinite(got) && error <= allowed;
      if (std::isinf(allowed)) ++r.unbounded;
      if (std::isfinite(error)) {
        r.max_error = std::max(r.max_error, error);
        if (!std::isinf(allowed))
          r.max_bound_used = std::max(r.max_bound_used, allowed > 0 ? error / allowed : (error > 0 ? INFINITY : 0.0));
        r.max_relative = std::max(r.max_relative, scale > 0 ? error / scale : 0.0);
      }
      if (!ok && r.first_failure.empty()) {
        std::ostringstream why;
        why << "element (" << i / cols << ", " << i % cols << "): got " << got << ", expected " << want
            << " (off by " << error << ", allowed " << allowed << ")";
        r.first_failure = why.str();
      }
    }
    results.push_back(r);
  }
  return results;
}

}  // namespace block
