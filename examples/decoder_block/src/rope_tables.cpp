#include "rope_tables.hpp"

#include <cmath>

namespace block {

RopeTables rope_tables(const BlockConfig& config, int64_t first, int64_t tokens) {
  const int64_t pairs = config.head_dim() / 2;
  RopeTables tables{std::vector<float>(tokens * 2 * pairs), std::vector<float>(tokens * 2 * pairs)};
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t i = 0; i < pairs; ++i) {
      const double inverse_frequency =
          std::pow(config.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(config.head_dim()));
      const double angle = static_cast<double>(first + t) * inverse_frequency;
      const int64_t first_half = t * 2 * pairs + i, second_half = first_half + pairs;
      tables.cos[first_half] = tables.cos[second_half] = static_cast<float>(std::cos(angle));
      tables.sin[first_half] = static_cast<float>(-std::sin(angle));
      tables.sin[second_half] = static_cast<float>(std::sin(angle));
    }
  return tables;
}

}  // namespace block
