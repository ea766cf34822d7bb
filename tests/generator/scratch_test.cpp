// SCRATCH (docs/kernel-contract.md): memory a kernel's workgroups share within one call, bound after the
// outputs, zero when every call starts and left so by the kernel, never compared. On an op declared here,
// colmax, whose test kernel (tests/kernels/colmax_last_workgroup.comp) counts its workgroups' arrivals in
// scratch: the last to arrive combines the others' partial maxima, which is right only where the count starts
// at 0 on every run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kernelgen/reference.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "kernelgen/device.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "kernelgen/validation/validate.hpp"

// y[c] = the largest x[r, c]; NaN where the column holds one (a kernel's max may drop it: validation frees
// it).
KERNELGEN_REFERENCE(colmax) {
  const auto x = kernelgen::as_matrix(inputs[0]);
  auto y = kernelgen::as_array(outputs[0]);
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    float top = -std::numeric_limits<float>::infinity();
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      top = std::isnan(x(r, c)) || std::isnan(top) ? std::nanf("") : std::max(top, x(r, c));
    y(c) = top;
  }
}

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

constexpr const char* kColmax = R"({"name": "colmax", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["rows", 64]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [64]}],
    "scratch": [{"name": "partial", "dtype": "f32", "shape": ["rows", 64]},
                {"name": "count", "dtype": "u32", "shape": [1]}],
    "dims": {"rows": [1, 16, 40, 333]}, "bench_dims": {"rows": 4096}})";

OpSpec colmax_spec() {
  return parse_op_spec(nlohmann::json::parse(kColmax));
}

// The spec with `field` replaced by `value`.
nlohmann::json colmax_with(const std::string& field, nlohmann::json value) {
  nlohmann::json spec = nlohmann::json::parse(kColmax);
  spec[field] = std::move(value);
  return spec;
}

std::string colmax_kernel() {
  return read_file(std::string(KERNELGEN_TEST_KERNELS_DIR) + "/colmax_last_workgroup.comp");
}

// The test kernel with `from` replaced by `to`, once.
std::string colmax_kernel_with(const std::string& from, const std::string& to) {
  std::string source = colmax_kernel();
  const size_t at = source.find(from);
  if (at == std::string::npos) throw std::logic_error("the kernel has no `" + from + "`");
  return source.replace(at, from.size(), to);
}

TEST(ScratchSpec, BindsAfterTheOutputsAndIsNeitherCalledWithNorCountedAsMoved) {
  const OpSpec spec = colmax_spec();
  ASSERT_EQ(spec.tensors().size(), 4u);
  EXPECT_EQ(spec.tensors()[2].name, "partial");
  EXPECT_EQ(spec.tensors()[3].name, "count");
  EXPECT_EQ(spec.call_tensor_count(), 2u);
  // BYTES' default counts what the op reads and writes for its caller: x and y, not the scratch.
  const DimValues dims{10};
  EXPECT_EQ(spec.bytes_at(dims), 10 * 64 * 4 + 64 * 4);
  EXPECT_EQ(parse_op_spec(to_json(spec)).scratch.size(), 2u) << "to_json keeps it";
}

TEST(ScratchSpec, IsPartOfTheSpecHashOnlyWhereDeclared) {
  const OpSpec with = colmax_spec();
  nlohmann::json bare = nlohmann::json::parse(kColmax);
  bare.erase("scratch");
  const OpSpec without = parse_op_spec(bare);
  EXPECT_NE(spec_hash(with, "ref", "p"), spec_hash(without, "ref", "p"));
  // An op without scratch hashes as before scratch existed: its JSON has no "scratch" key at all.
  EXPECT_FALSE(to_json(without).contains("scratch"));
}

TEST(ScratchSpec, RejectsWhatItCannotZeroOrSize) {
  const auto error = [](const nlohmann::json& spec) {
    try {
      parse_op_spec(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(error(colmax_with("scratch", {{{"name", "s"}, {"dtype", "f16"}, {"shape", {64}}}})),
              HasSubstr("s is f16; scratch is f32, i32 or u32"));
  EXPECT_THAT(error(colmax_with("scratch", {{{"name", "s"}, {"dtype", "f32"}, {"shape", {"splits"}}}})),
              HasSubstr("'splits' is not a dim of the inputs or outputs"));
  EXPECT_THAT(error(colmax_with("scratch", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {64}}}})),
              HasSubstr("tensor name 'x' is used twice"));
}

class Scratch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<Device>(validation_device_options()); }
  static void TearDownTestSuite() { device_.reset(); }

  static Verdict evaluate(const std::string& glsl, KernelBinary* binary = nullptr) {
    return evaluate_source(*device_, colmax_spec(), find_reference("colmax"), glsl,
                           {base_seed_from_environment(), 0}, binary);
  }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> Scratch::device_;

// Each case runs twice, then the stress runs, each from zeroed scratch: a count left over would leave no
// workgroup to combine, and y as the poison that run found (NONDETERMINISTIC, or never written).
TEST_F(Scratch, IsZeroWhenEveryRunStartsSoTheLastWorkgroupCombines) {
  const Verdict verdict = evaluate(colmax_kernel());
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_GT(verdict.cases.size(), 8u);
}

// Timed runs do not reset the scratch: each finds it as the run before left it, zero where the kernel
// restores it (as a wrapper's calls do), so the output the last run left is right.
TEST_F(Scratch, TimedRunsFindItAsTheRunBeforeLeftIt) {
  KernelBinary binary;
  ASSERT_TRUE(evaluate(colmax_kernel(), &binary).passed());
  const OpSpec spec = colmax_spec();
  const TimedRun timed = time_kernel(*device_, spec, binary, 5, base_seed_from_environment());
  ASSERT_FALSE(timed.outputs.empty());
  for (const TimedSizeOutput& set : timed.outputs) {
    const auto expected = run_reference(spec, find_reference("colmax"), set.inputs);
    EXPECT_EQ(set.outputs.at(0).bytes, expected.at(0).bytes)
        << "the last of 5 runs (and warm-ups) on this set";
  }
}

TEST_F(Scratch, AKernelThatLeavesItNonzeroIsRejectedNamingIt) {
  const Verdict verdict = evaluate(colmax_kernel_with("if (c == 0u) count[0] = 0u;", ""));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("left binding 3 (scratch count) at rows=1 nonzero at element 0"));
}

TEST_F(Scratch, AStorePastItsEndIsOutOfBoundsNamingIt) {
  const Verdict verdict =
      evaluate(colmax_kernel_with("partial[w * 64u + c] = top;", "partial[dims.rows * 64u + c] = top;"));
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("binding 2 (scratch partial)"));
}

TEST_F(Scratch, AKernelThatLeavesItUndeclaredIsAnInterfaceMismatch) {
  const Verdict verdict = evaluate(
      colmax_kernel_with("layout(set = 0, binding = 3, std430) coherent buffer Count { uint count[]; };",
                         "shared uint count[1];"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("binding 3 (scratch count) is not declared"));
}

}  // namespace
}  // namespace kernelgen
