#include "weights.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace block {
namespace {

const std::string kLayer = "model.layers.0.";

// Uniform in [-bound, bound) from the generator's raw bits, the same on every standard library.
float uniform(std::mt19937_64& rng, double bound) {
  const double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return static_cast<float>((2.0 * unit - 1.0) * bound);
}

HalfMatrix projection(std::mt19937_64& rng, int64_t out, int64_t in) {
  HalfMatrix w(out, in);
  const double bound = std::sqrt(3.0 / static_cast<double>(in));
  for (int64_t i = 0; i < w.size(); ++i) w.data()[i] = Eigen::half(uniform(rng, bound));
  return w;
}

Eigen::VectorXf norm_weight(std::mt19937_64& rng, int64_t n) {
  Eigen::VectorXf w(n);
  for (int64_t i = 0; i < n; ++i) w[i] = 1.0f + uniform(rng, 0.1);
  return w;
}

struct Entry {
  std::string name;
  const char* dtype;
  std::vector<int64_t> shape;
  const void* data;
  size_t bytes;
};

std::vector<Entry> entries(const BlockWeights& w) {
  auto half = [](const std::string& name, const HalfMatrix& m) {
    return Entry{kLayer + name, "F16", {m.rows(), m.cols()}, m.data(), static_cast<size_t>(m.size()) * 2};
  };
  auto f32 = [](const std::string& name, const Eigen::VectorXf& v) {
    return Entry{kLayer + name, "F32", {v.size()}, v.data(), static_cast<size_t>(v.size()) * 4};
  };
  return {f32("input_layernorm.weight", w.attention_norm),
          half("self_attn.q_proj.weight", w.q),
          half("self_attn.k_proj.weight", w.k),
          half("self_attn.v_proj.weight", w.v),
          half("self_attn.o_proj.weight", w.o),
          f32("post_attention_layernorm.weight", w.mlp_norm),
          half("mlp.gate_proj.weight", w.gate),
          half("mlp.up_proj.weight", w.up),
          half("mlp.down_proj.weight", w.down)};
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error(path.string() + ": " + what);
}

}  // namespace

BlockWeights make_weights(const BlockConfig& config, uint64_t seed) {
  std::mt19937_64 rng(seed);
  BlockWeights w;
  w.config = config;
  const int64_t h = config.hidden, f = config.ffn;
  w.attention_norm = norm_weight(rng, h);
  w.q = projection(rng, h, h);
  w.k = projection(rng, h, h);
  w.v = projection(rng, h, h);
  w.o = projection(rng, h, h);
  w.mlp_norm = norm_weight(rng, h);
  w.gate = projection(rng, f, h);
  w.up = projection(rng, f, h);
  w.down = projection(rng, h, f);
  return w;
}

void write_weights(const BlockWeights& weights, const std::filesystem::path& path) {
  nlohmann::json header;
  header["__metadata__"] = {{"format", "pt"}, {"written_by", "kernelgen examples/decoder_block"},
                            {"config", weights.config.name}};
  size_t offset = 0;
  const std::vector<Entry> all = entries(weights);
  for (const Entry& e : all) {
    header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {offset, offset + e.bytes}}};
    offset += e.bytes;
  }
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');  // the data starts 8-byte aligned
  const uint64_t length = text.size();
  const std::filesystem::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) fail(partial, "cannot open it for writing");
    char length_bytes[8];
    for (int i = 0; i < 8; ++i) length_bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    out.write(length_bytes, 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const Entry& e : all) out.write(static_cast<const char*>(e.data), static_cast<std::streamsize>(e.bytes));
    if (!out) fail(partial, "write failed");
  }
  std::filesystem::rename(partial, path);  // a crash leaves no half-written file under the real name
}

BlockWeights read_weights(const BlockConfig& config, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open it");
  unsigned char length_bytes[8];
  if (!in.read(reinterpret_cast<char*>(length_bytes), 8)) fail(path, "shorter than a safetensors header");
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i) length |= static_cast<uint64_t>(length_bytes[i]) << (8 * i);
  const auto file_size = std::filesystem::file_size(path);
  if (length > file_size - 8) fail(path, "its header length " + std::to_string(length) + " runs past the file");
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  const nlohmann::json header = nlohmann::json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) fail(path, "its header is not a JSON object");
  const uint64_t data_start = 8 + length;

  BlockWeights w;
  w.config = config;
  const int64_t h = config.hidden, f = config.ffn;
  w.attention_norm.resize(h);
  w.mlp_norm.resize(h);
  w.q.resize(h, h);
  w.k.resize(h, h);
  w.v.resize(h, h);
  w.o.resize(h, h);
  w.gate.resize(f, h);
  w.up.resize(f, h);
  w.down.resize(h, f);
  for (const Entry& e : entries(w)) {
    if (!header.contains(e.name)) fail(path, "has no tensor " + e.name);
    const nlohmann::json& t = header[e.name];
    if (t.value("dtype", "") != e.dtype || t.value("shape", std::vector<int64_t>{}) != e.shape)
      fail(path, e.name + " is " + t.value("dtype", "?") + " " + t["shape"].dump() + ", expected " + e.dtype + " " +
                     nlohmann::json(e.shape).dump() + " (the " + config.name + " configuration)");
    const auto offsets = t.value("data_offsets", std::vector<uint64_t>{});
    if (offsets.size() != 2 || offsets[1] - offsets[0] != e.bytes || data_start + offsets[1] > file_size)
      fail(path, e.name + ": its data_offsets do not hold " + std::to_string(e.bytes) + " bytes inside the file");
    in.seekg(static_cast<std::streamoff>(data_start + offsets[0]));
    if (!in.read(static_cast<char*>(const_cast<void*>(e.data)), static_cast<std::streamsize>(e.bytes)))
      fail(path, e.name + ": read failed");
  }
  return w;
}

}  // namespace block
