// The references of issue 11's elementwise ops (gelu, sigmoid, silu, mul, bias_add) tell kernels apart: a
// kernel of another op with the same interface (the same tensors and dims) is rejected against each of them,
// while the op's own checked-in kernel passes; and no reference is degenerate: two different random inputs
// give two different outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernelgen/device.hpp"
#include "kernelgen/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {
namespace {

const std::string kGenerated = KERNELGEN_TEST_GENERATED_DIR;
const std::string kSpecs = KERNELGEN_TEST_SPECS_DIR;

OpSpec spec_of(const std::string& op) { return load_op_spec(kSpecs + "/" + op + "/spec.json"); }

ReferenceFunction reference_of(const std::string& op) {
  const ReferenceFunction reference = find_reference(op);
  if (!reference) throw std::logic_error("the reference of " + op + " is not linked into this test");
  return reference;
}

std::string checked_in(const std::string& op) { return read_file(kGenerated + "/" + op + "/kernel.comp"); }

// relu over rows of 1024: the catalog's relu has a batch of 8x16x16 maps (dim `batch`), so its kernel is
// restated with gelu's interface (dim `rows`). relu and gelu agree for large |x| and differ near 0.
const std::string kReluOverRows = R"(#version 450
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.rows * 256u) y[i] = max(x[i], vec4(0.0));
}
)";

// A per-channel bias for NHWC tensors (channel = i % 16) with bias_add's interface: the op bias_add is not.
const std::string kNhwcBiasAdd = R"(#version 450
// kernelgen: dispatch n * 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bias { float bias[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.n * 1024u) y[i] = x[i] + bias[i % 16u];
}
)";

class ElementwiseReferences : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<Device>(validation_device_options()); }
  static void TearDownTestSuite() { device_.reset(); }

  static Verdict evaluate(const std::string& op, const std::string& glsl) {
    return evaluate_source(*device_, spec_of(op), reference_of(op), glsl, {base_seed_from_environment(), 0});
  }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> ElementwiseReferences::device_;

// A kernel written for `source_op`, validated against `op`: `glsl`, or where it is empty, source_op's
// checked-in kernel (read when the test runs).
struct Impostor {
  std::string op;
  std::string source_op;
  std::string glsl;
};

std::string kernel_of(const Impostor& impostor) {
  return impostor.glsl.empty() ? checked_in(impostor.source_op) : impostor.glsl;
}

void PrintTo(const Impostor& impostor, std::ostream* out) { *out << impostor.source_op << " as " << impostor.op; }

class ElementwiseImpostor : public ElementwiseReferences, public ::testing::WithParamInterface<Impostor> {};

TEST_P(ElementwiseImpostor, IsRejectedAsNumericallyWrong) {
  const Impostor& impostor = GetParam();
  const Verdict verdict = evaluate(impostor.op, kernel_of(impostor));
  EXPECT_EQ(status_name(verdict.status), std::string(status_name(Status::INCORRECT_NUMERICAL))) << describe(verdict);
  EXPECT_THAT(verdict.reason, ::testing::HasSubstr("differ from the reference")) << describe(verdict);
  EXPECT_FALSE(verdict.passed());
}

INSTANTIATE_TEST_SUITE_P(
    SameInterface, ElementwiseImpostor,
    ::testing::Values(Impostor{"gelu", "relu", kReluOverRows}, Impostor{"gelu", "silu", ""},
                      Impostor{"sigmoid", "silu", ""}, Impostor{"silu", "sigmoid", ""}, Impostor{"silu", "gelu", ""},
                      Impostor{"mul", "add", ""}, Impostor{"bias_add", "bias_add_nhwc", kNhwcBiasAdd}),
    [](const ::testing::TestParamInfo<Impostor>& info) { return info.param.source_op + "_as_" + info.param.op; });

class ElementwiseOp : public ElementwiseReferences, public ::testing::WithParamInterface<std::string> {};

// The control for the rejections above: the op's own kernel passes with the same spec, reference and device.
TEST_P(ElementwiseOp, CheckedInKernelPasses) {
  const Verdict verdict = evaluate(GetParam(), checked_in(GetParam()));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
}

TEST_P(ElementwiseOp, ReferenceGivesDifferentOutputsForDifferentInputs) {
  const OpSpec spec = spec_of(GetParam());
  const ReferenceFunction reference = reference_of(GetParam());
  const DimValues dims(spec.dims.size(), 1);
  const TestCase first = make_case(spec, "uniform", 1, dims), second = make_case(spec, "uniform", 2, dims);
  ASSERT_NE(first.inputs[0].bytes, second.inputs[0].bytes) << "the two cases drew the same inputs";
  const auto first_out = run_reference(spec, reference, first), second_out = run_reference(spec, reference, second);
  ASSERT_EQ(first_out.size(), 1u);
  EXPECT_NE(first_out[0].bytes, second_out[0].bytes);
  // Not a copy of an input either: every output differs from x somewhere.
  EXPECT_NE(first_out[0].bytes, first.inputs[0].bytes);
  // And every element is finite on these inputs in [-1, 1].
  for (int64_t e = 0; e < first_out[0].elements(); ++e)
    ASSERT_TRUE(std::isfinite(first_out[0].value(e))) << "element " << e;
}

INSTANTIATE_TEST_SUITE_P(Catalog, ElementwiseOp, ::testing::Values("gelu", "sigmoid", "silu", "mul", "bias_add"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace kernelgen
