// Adversarial kernels of the out-of-bounds kind, each doing one thing outside its tensors, on the catalog's
// relu (x, y: f32[batch,8,16,16], 2048 elements at batch=1): a store before the output, a store once far past
// it, a read 1 MiB past the input, a kernel that acts differently when its output looks larger than the
// tensor. Under GPU-assisted validation (the Khronos layer, a declared dependency) every one is OUT_OF_BOUNDS
// naming the tensor, or wrong; without the layer only the guard bytes after each tensor are left, tested last.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernelgen/device.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/evaluate.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;

// A relu whose main() body is `body`, with i = gl_GlobalInvocationID.x and n = dims.batch * 2048. Workgroups
// of 64: the largest size validated is a ragged batch of 97 (385 at 256).
std::string relu_with(const std::string& body, const std::string& y_access = "writeonly") {
  return R"(#version 450
// kernelgen: dispatch (batch * 2048 + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) )" +
         y_access + R"( buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint n = dims.batch * 2048u;
  if (i >= n) return;
)" + body +
         "\n}\n";
}

Verdict validate_on(Device& device, const std::string& glsl) {
  const OpSpec spec = load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json");
  return evaluate_source(device, spec, find_reference("relu"), glsl, {base_seed_from_environment(), 0});
}

class OutOfBounds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { device_ = std::make_unique<Device>(validation_device_options()); }
  static void TearDownTestSuite() { device_.reset(); }
  void SetUp() override {
    ASSERT_TRUE(device_->gpu_assisted_validation())
        << "VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)";
    ASSERT_FALSE(device_->robust_buffer_access()) << "validated as wrappers run: without robust access";
  }
  static Verdict validate(const std::string& glsl) { return validate_on(*device_, glsl); }
  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> OutOfBounds::device_;

TEST_F(OutOfBounds, TheCorrectKernelPasses) {
  const Verdict verdict = validate(relu_with("  y[i] = max(x[i], 0.0);"));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
}

TEST_F(OutOfBounds, AStoreOneElementBeforeTheOutputIsCaught) {
  const Verdict verdict = validate(relu_with("  y[i] = max(x[i], 0.0);\n  if (i == 7u) y[i - 8u] = 1.0;"));
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("wrote past the end of binding 1 (output y) at batch=1"));
  EXPECT_THAT(verdict.reason, HasSubstr("an index below 0 wraps around"));
  EXPECT_EQ(verdict.cases.back().tensor, "y");
}

TEST_F(OutOfBounds, OneStoreFarPastTheEndIsCaught) {
  const Verdict verdict =
      validate(relu_with("  y[i] = max(x[i], 0.0);\n  if (i == 0u) y[n + 262144u] = 1.0;"));
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("wrote past the end of binding 1 (output y) at batch=1: element 264192 of "
                                        "a tensor of 2048 elements; guard every store with an index < 2048"));
}

TEST_F(OutOfBounds, AReadOneMebibytePastTheInputIsCaught) {
  const Verdict verdict = validate(relu_with("  y[i] = max(x[i], 0.0) + x[i + 262144u] * 0.0;"));
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  // The element is the farthest any invocation reached: 262144 or more.
  EXPECT_THAT(verdict.reason, HasSubstr("read past the end of binding 0 (input x) at batch=1: element 26"));
  EXPECT_THAT(verdict.reason, HasSubstr("of a tensor of 2048 elements; guard every load with an index < 2048"));
  EXPECT_EQ(verdict.cases.back().tensor, "x");
}

// It is right only where y looks longer than the tensor, as it did when the guards were bound with it.
TEST_F(OutOfBounds, AKernelCannotTellItIsBeingValidated) {
  const Verdict verdict = validate(relu_with("  y[i] = uint(y.length()) > n ? max(x[i], 0.0) : x[i];"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
}

// Without the layer: robust access, and guard bytes after each tensor, in a pattern per tensor and run, so that
// y[n] = max(x[n], 0), which copies x's first guard word over y's, still counts as a change.
TEST(OutOfBoundsWithoutTheLayer, AStoreOnePastTheEndChangesAGuard) {
  Device device(DeviceOptions{.robust_buffer_access = true});
  ASSERT_FALSE(device.gpu_assisted_validation());
  const Verdict verdict = validate_on(device, R"(#version 450
// kernelgen: dispatch batch * 8 + 1 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i <= dims.batch * 2048u) y[i] = max(x[i], 0.0);
}
)");
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("wrote past the end of binding 1 (output y) at batch=1: element 2048 "));
}

}  // namespace
}  // namespace kernelgen
