#pragma once
// The block's weights, made from a seed and kept in a safetensors file in the layout of a converted Hugging Face
// Llama checkpoint: each projection f16, row-major [out, in] (torch.nn.Linear's weight), under the names of
// LlamaDecoderLayer's state dict (model.layers.0.self_attn.q_proj.weight, ...); the two RMSNorm weights f32.
#include "block_config.hpp"

#include <Eigen/Core>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace block {

using HalfMatrix = Eigen::Matrix<Eigen::half, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct BlockWeights {
  BlockConfig config;
  Eigen::VectorXf attention_norm, mlp_norm;  // [hidden]
  HalfMatrix q, k, v, o;                     // [hidden, hidden]
  HalfMatrix gate, up;                       // [ffn, hidden]
  HalfMatrix down;                           // [hidden, ffn]
};

// Projections uniform in +-sqrt(3 / in) (unit variance in, unit variance out), norms 1 +- 0.1: the same seed
// gives the same weights on every machine (std::mt19937_64 and its own uniform mapping).
BlockWeights make_weights(const BlockConfig& config, uint64_t seed);

// Writes the weights as safetensors (an 8-byte little-endian header length, a JSON header, the tensors' bytes).
void write_weights(const BlockWeights& weights, const std::filesystem::path& path);

// Reads a file write_weights wrote for `config`. Throws std::runtime_error naming the file and what is wrong: a
// short file, a header that is not JSON, a missing tensor, a dtype or shape other than config's.
BlockWeights read_weights(const BlockConfig& config, const std::filesystem::path& path);

}  // namespace block
