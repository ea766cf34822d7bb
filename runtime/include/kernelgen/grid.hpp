#pragma once
#include <cstdint>

namespace kernelgen {

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

}  // namespace kernelgen
