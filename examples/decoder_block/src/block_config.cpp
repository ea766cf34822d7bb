#include "block_config.hpp"

#include <stdexcept>

namespace block {

BlockConfig config_named(const std::string& name) {
  if (name == "tiny") return {"tiny", 64, 4, 160, 10000.0};
  if (name == "mini") return {"mini", 256, 2, 512, 10000.0};
  if (name == "llama") return {"llama", 4096, 32, 14336, 500000.0};
  throw std::invalid_argument("--config " + name + ": expected tiny, mini or llama");
}

}  // namespace block
