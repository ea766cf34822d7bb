#pragma once
// The rotary embedding's tables for the catalog's rope op (ops/rope/reference.cpp): Hugging Face's cos and sin
// for positions first..first + tokens - 1, [tokens, 2, pairs], with rotate_half's minus sign in the first half
// of sin.
#include "block_config.hpp"

#include <cstdint>
#include <vector>

namespace block {

struct RopeTables {
  std::vector<float> cos, sin;
};

// The angle of pair i at position p is p * theta^(-2i / head_dim), computed in double and rounded once.
RopeTables rope_tables(const BlockConfig& config, int64_t first, int64_t tokens);

}  // namespace block
