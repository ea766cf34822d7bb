#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kernelgen {

struct TensorSpec {
  std::string name;
  std::string dtype;  // "f32" in contract v1
  std::vector<int64_t> shape;

  int64_t elements() const;
  int64_t bytes() const;
};

struct SearchSettings {
  int samples = 4;
  int rounds = 3;
  int beam = 1;
  std::string model;
  double budget_usd = 0;  // 0: no budget
};

// One kernelgen_add_op() declaration: written by CMake into the build tree as spec.json.
struct OpSpec {
  int contract = 1;
  std::string name;
  std::string description;
  std::string reference_path;  // absolute
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::map<std::string, double> params;
  double atol = 1e-5;
  double rtol = 1e-5;
  double flops = 0;  // per call, 0 when not declared
  std::string kernel_path;    // KERNEL: a hand-written candidate, absolute, or empty
  std::string generated_dir;  // where generated/<op>/ lives in the source tree
  SearchSettings search;

  // Bindings in contract order: inputs, then outputs.
  std::vector<TensorSpec> tensors() const;
  int64_t bytes_moved() const;
};

// Parses and checks a spec; throws std::invalid_argument naming the field and what is wrong.
OpSpec parse_op_spec(const nlohmann::json& json);
OpSpec load_op_spec(const std::string& path);
nlohmann::json to_json(const OpSpec& spec);

// The part of the spec that decides what a correct kernel is, and what the model is asked: the interface, the
// params, the tolerance, the description, the reference's text and the prompt templates' version. A kernel
// checked in under another spec hash is stale.
std::string spec_hash(const OpSpec& spec, const std::string& reference_text, const std::string& prompt_version);

// The extents joined by a separator: {4, 8, 16} and 'x' give "4x8x16".
std::string join_extents(const std::vector<int64_t>& shape, char separator);

// e.g. relu_i4x8x16x16_o4x8x16x16 (the seed's cache naming, without status and hash)
std::string spec_slug(const OpSpec& spec);

}  // namespace kernelgen
