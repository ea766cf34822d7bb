#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kernelgen/dtype.hpp"

namespace kernelgen {

// One extent of a declared shape: a number, or a symbolic dim given per call (`rows`).
struct Extent {
  int64_t size = 0;  // the number, when not symbolic
  std::string dim;   // the dim's name, when symbolic
  int dim_index = -1;  // its position in OpSpec::dims

  bool symbolic() const { return dim_index >= 0; }
  std::string text() const { return symbolic() ? dim : std::to_string(size); }
};

// The values of an op's symbolic dims, in OpSpec::dims order; empty for an op without any.
using DimValues = std::vector<int64_t>;

struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<Extent> shape;
  // INDEX: every value is an index into an extent of this size (a dim or a number), e.g. token ids of `vocab`.
  std::optional<Extent> index_of;

  bool symbolic() const;
  // The shape, elements and bytes at these dims; a tensor without symbolic extents needs none.
  std::vector<int64_t> shape_at(std::span<const int64_t> dims = {}) const;
  int64_t elements(std::span<const int64_t> dims = {}) const;
  int64_t bytes(std::span<const int64_t> dims = {}) const;
};

// A symbolic dim: its name, the sizes validated (DIMS), the size benchmarked and timed on a GPU (BENCH_DIMS)
// and on a CPU device such as lavapipe (CPU_BENCH_DIMS), where a real model's size would take minutes a run.
struct DimSpec {
  std::string name;
  std::vector<int64_t> sizes;
  int64_t bench = 0;
  int64_t cpu_bench = 0;
};

// TOLERANCE <atol> [<rtol>], or TOLERANCE <n>ulp: in units in the last place of the output's dtype, for an output
// that is one rounding of an exact value (compare_outputs says how it is judged). ulp > 0 replaces atol and rtol.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  double ulp = 0;  // a positive multiple of 0.5, or 0: atol and rtol apply
};

struct SearchSettings {
  int samples = 4;
  int rounds = 3;
  int opt_rounds = 0;  // optimisation rounds after the first correct kernel (generator/src/optimise/)
  int beam = 1;        // parents kept from one optimisation round to the next
  std::string model;
  double budget_usd = 0;  // 0: no budget
};

// VARIANTS name=file.comp: a kernel for devices with what others lack (cooperative matrices), checked in under
// generated/<op>/variants/<name>/ and validated on the validation devices that can run it; the wrapper runs the
// first variant its device can run, else the op's portable kernel.
struct VariantSpec {
  std::string name;
  std::string kernel_path;  // absolute
};

// One kernelgen_add_op() declaration: written by CMake into the build tree as spec.json.
struct OpSpec {
  std::string name;
  std::string description;
  std::string reference_path;  // absolute
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  // SCRATCH: memory the kernel's workgroups share within one call (partial results, arrival counters), bound
  // after the outputs, all zero when every call starts and left so by the kernel, never compared. 32-bit
  // dtypes; extents are numbers or dims the inputs and outputs name. The wrapper allocates it; a caller never
  // sees it.
  std::vector<TensorSpec> scratch;
  std::vector<DimSpec> dims;  // in order of first appearance across the tensors: the push-constant order
  std::map<std::string, double> params;
  std::optional<Tolerance> tolerance;  // TOLERANCE; without it, each output's dtype default
  std::string flops;                   // FLOPS: an expression over the dims, empty when not declared
  std::string bytes;                   // BYTES: the same; empty: every tensor read or written once
  std::string kernel_path;             // KERNEL: a hand-written candidate, absolute, or empty
  std::string generated_dir;           // where generated/<op>/ lives in the source tree
  std::vector<VariantSpec> variants;   // in order of preference
  SearchSettings search;

  // Bindings in contract order: inputs, then outputs, then scratch.
  std::vector<TensorSpec> tensors() const;
  // What a caller passes: the inputs, then the outputs (the bindings before the scratch).
  size_t call_tensor_count() const { return inputs.size() + outputs.size(); }
  // What binding `binding` holds: "input", "output" or "scratch".
  const char* binding_role(size_t binding) const;
  std::vector<std::string> dim_names() const;
  // 1 for ops of f32 tensors with constant shapes (the contract kernels were first generated under), else 2.
  int contract() const;
  // TOLERANCE, else the dtype's default, for a float output; 0 (exact) for an integer one, whatever TOLERANCE says.
  Tolerance tolerance_of(const TensorSpec& output) const;
  // FLOPS and bytes moved at these dims (0 FLOPS when not declared; bytes: every input and output once).
  double flops_at(std::span<const int64_t> dims = {}) const;
  double bytes_at(std::span<const int64_t> dims = {}) const;
  // The dims benchmarked and timed: BENCH_DIMS, else the largest of each DIMS. On a CPU device, CPU_BENCH_DIMS
  // where declared.
  DimValues bench_dims(bool cpu_device = false) const;
  // Where a variant is checked in: generated/<op>/variants/<name>.
  std::string variant_dir(const VariantSpec& variant) const;
};

// Parses and checks a spec; throws std::invalid_argument naming the field and what is wrong.
OpSpec parse_op_spec(const nlohmann::json& json);
// A spec.json's contents, unchecked; throws std::invalid_argument naming the file where it is not valid JSON.
nlohmann::json read_op_spec_json(const std::string& path);
// read_op_spec_json, then parse_op_spec, its errors prefixed with the file.
OpSpec load_op_spec(const std::string& path);
nlohmann::json to_json(const OpSpec& spec);

// The part of the spec that decides what a correct kernel is, and what the model is asked: the interface, the
// dims validated, the params, the tolerance, the description, the reference's text and the prompt templates'
// version. A kernel checked in under another spec hash is stale.
std::string spec_hash(const OpSpec& spec, const std::string& reference_text, const std::string& prompt_version);

// The extents joined by a separator: {4, 8, 16} and 'x' give "4x8x16".
std::string join_extents(const std::vector<int64_t>& shape, char separator);
std::string join_extents(const std::vector<Extent>& shape, char separator);

// "rows=5 cols=7", or "" for an op without dims.
std::string dims_text(const OpSpec& spec, std::span<const int64_t> dims);

// e.g. relu_i4x8x16x16_o4x8x16x16 (the seed's cache naming, without status and hash)
std::string spec_slug(const OpSpec& spec);

}  // namespace kernelgen
