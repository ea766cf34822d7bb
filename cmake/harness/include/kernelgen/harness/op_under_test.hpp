#pragma once
// What an op's generated test (cmake/templates/test.cpp.in) and benchmark (cmake/templates/bench.cpp.in) hand to
// the checks and timings they run (cmake/harness/op_tests.cpp, cmake/harness/op_benchmarks.cpp): the op's spec,
// reference and kernels, and its generated wrapper behind virtual calls. Those are compiled once per project
// instead of once per op: each op's own test and benchmark are a few lines that fill this in.
#include <kernelgen/reference_types.hpp>
#include <kernelgen/runtime.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kernelgen::harness {

// The dims of a call as values, in the spec's order.
using DimValues = std::vector<int64_t>;

// An object of the op's generated wrapper class (kernelgen::ops::<name>) on one Device.
class Wrapper {
 public:
  virtual ~Wrapper() = default;
  // The typed call, op(dims, b[0], b[1], ...), with one buffer per tensor in binding order; waits.
  virtual void call(const DimValues& dims, std::vector<Buffer>& buffers) = 0;
  // op.submit(dims, b[0], b[1], ...): returns at once.
  virtual Submission submit(const DimValues& dims, std::vector<Buffer>& buffers) = 0;
  // op.record(sequence, dims, buffers).
  virtual void record(Sequence& sequence, const DimValues& dims, const std::vector<const Buffer*>& buffers) = 0;
  virtual Kernel& kernel() = 0;
  // "" for the op's own kernel, else the variant's name.
  virtual const char* variant() const = 0;
  virtual Grid launch_grid(const DimValues& dims) const = 0;
  // The push constants of a call at these dims.
  virtual std::vector<uint32_t> dim_words(const DimValues& dims) const = 0;
};

// A kernel the wrapper embeds besides its own (VARIANTS).
struct Variant {
  const char* name;
  std::span<const uint32_t> spirv;
  const char* dispatch;
};

struct OpUnderTest {
  const char* name;
  const char* spec_json;  // the spec kernelgen_add_op wrote, as JSON
  ReferenceFunction reference;
  std::span<const uint32_t> spirv;  // the op's own kernel, as the wrapper embeds it
  const char* dispatch;             // its dispatch line
  std::vector<Variant> variants;
  std::string generated_dir;  // where kernel.comp and variants/<name>/kernel.comp are checked in
  std::function<std::unique_ptr<Wrapper>(Device&)> open;  // a wrapper object on this device
};

}  // namespace kernelgen::harness
