#pragma once
// The shape of one Llama-style decoder block (multi-head attention, no grouped-query heads).
#include <cstdint>
#include <string>

namespace block {

struct BlockConfig {
  std::string name;
  int64_t hidden = 0;       // the model's width
  int64_t heads = 0;        // attention heads, each hidden / heads wide
  int64_t ffn = 0;          // the MLP's hidden size
  double rope_theta = 0.0;  // the rotary embedding's base
  int64_t head_dim() const { return hidden / heads; }
};

// "tiny": hidden 64, 4 heads of 16, ffn 160 (what ctest runs on lavapipe). "mini": hidden 256, 2 heads of
// 128, ffn 512 (llama's heads, small enough for lavapipe). "llama": hidden 4096, 32 heads of 128, ffn 14336,
// theta 500000 (Llama 3 8B's block with its 8 key-value heads widened to 32). Throws std::invalid_argument
// naming the choices for any other name.
BlockConfig config_named(const std::string& name);

// Whether a decode step's attention is decode_attention_f16 (q and its output in f16, one dispatch a token),
// which takes heads of 128 only, rather than decode_attention_split and _combine (f32, any head_dim).
inline bool decodes_attention_in_f16(const BlockConfig& config) {
  return config.head_dim() == 128;
}

}  // namespace block
