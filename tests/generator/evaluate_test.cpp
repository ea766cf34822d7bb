// evaluate_source on a Vulkan device: each deliberately wrong kernel of tests/kernels/ is rejected with the
// status and the reason a model could act on; the catalog's own kernels pass. The catalog's relu has a
// symbolic batch (x:f32[batch,8,16,16]); validation starts at batch=1, 2048 elements, where these kernels
// first fail.
#include "kernelgen/validation/evaluate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernelgen/contract/kernel_source.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kKernels = KERNELGEN_TEST_KERNELS_DIR;
// The catalog's checked-in kernels: generated/<op>/kernel.comp.
const std::string kGenerated = KERNELGEN_TEST_GENERATED_DIR;
const std::string kSpecs = KERNELGEN_TEST_SPECS_DIR;

// The spec kernelgen_add_op() wrote for a catalog op, and the reference linked into this test.
struct CatalogOp {
  OpSpec spec;
  ReferenceFunction reference;
};

CatalogOp catalog_op(const std::string& name) {
  CatalogOp op{load_op_spec(kSpecs + "/" + name + "/spec.json"), find_reference(name)};
  if (!op.reference) throw std::logic_error("the reference of " + name + " is not linked into this test");
  return op;
}

class Evaluate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    device_ = std::make_unique<Device>(validation_device_options());
  }
  static void TearDownTestSuite() { device_.reset(); }

  static Verdict evaluate(const std::string& op_name, const std::string& glsl, KernelBinary* binary = nullptr,
                          int timing_runs = 0) {
    const CatalogOp op = catalog_op(op_name);
    return evaluate_source(*device_, op.spec, op.reference, glsl, {base_seed_from_environment(), timing_runs},
                           binary);
  }

  static std::unique_ptr<Device> device_;
};

std::unique_ptr<Device> Evaluate::device_;

// One wrong relu each, with the status it must get and words its reason must contain.
struct BadKernel {
  std::string file;
  Status status;
  std::string reason;
};

void PrintTo(const BadKernel& kernel, std::ostream* out) {
  *out << kernel.file;
}

class EvaluateBadRelu : public Evaluate, public ::testing::WithParamInterface<BadKernel> {};

TEST_P(EvaluateBadRelu, IsRejectedWithItsStatusAndReason) {
  const BadKernel& bad = GetParam();
  KernelBinary binary;
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/" + bad.file), &binary);
  EXPECT_EQ(status_name(verdict.status), std::string(status_name(bad.status))) << describe(verdict);
  EXPECT_THAT(verdict.reason + "\n" + verdict.log, HasSubstr(bad.reason)) << describe(verdict);
  EXPECT_FALSE(verdict.passed());
  EXPECT_FALSE(verdict.timing);
}

INSTANTIATE_TEST_SUITE_P(
    BadKernels, EvaluateBadRelu,
    ::testing::Values(
        BadKernel{"writes_nothing.comp", Status::INCORRECT_NUMERICAL,
                  "case uniform: 2048 of 2048 elements of output y at batch=1 were never written"},
        BadKernel{"writes_half.comp", Status::INCORRECT_NUMERICAL,
                  "1024 of 2048 elements of output y at batch=1 were never written (first at index 1024)"},
        BadKernel{"writes_input.comp", Status::WROTE_INPUT, "binding 0 (input x) is written by a store"},
        BadKernel{"restores_input.comp", Status::WROTE_INPUT, "binding 0 (input x) is written by a store"},
        BadKernel{"input_not_readonly.comp", Status::WROTE_INPUT, "binding 0 (input x) is not declared readonly"},
        BadKernel{"relu_writable_view.comp", Status::WROTE_INPUT, "binding 0 (input x) is not declared readonly"},
        // The element named is the first whose guard the store changed: see the disabled
        // AStoreOnePastTheEndIsCaughtAtThatElement below.
        BadKernel{"writes_past_output.comp", Status::OUT_OF_BOUNDS,
                  "wrote past the end of binding 1 (output y) at batch=1: element "},
        BadKernel{"nondeterministic.comp", Status::NONDETERMINISTIC,
                  "two runs on the same inputs gave different y at batch=1"},
        BadKernel{"does_not_compile.comp", Status::COMPILE_ERROR,
                  "'gl_GlobalInvocationId' : undeclared identifier"},
        BadKernel{"wrong_bindings.comp", Status::INTERFACE_MISMATCH, "(set 0, binding 2)"},
        // 3e-4 relative on the elements above 100: hidden by a tolerance scaled by the largest |ref|.
        BadKernel{"relu_adds_above_100.comp", Status::INCORRECT_NUMERICAL, "differ from the reference; first at"},
        BadKernel{"relu_by_step.comp", Status::INCORRECT_NUMERICAL, "case nonfinite: "},
        BadKernel{"relu_f16_round_trip.comp", Status::INCORRECT_NUMERICAL, "differ from the reference"},
        BadKernel{"no_dispatch_line.comp", Status::INTERFACE_MISMATCH,
                  "no line declares the number of workgroups to launch; add `// kernelgen: dispatch X Y Z` with three "
                  "integer expressions over the dims"}),
    [](const ::testing::TestParamInfo<BadKernel>& info) {
      return info.param.file.substr(0, info.param.file.find('.'));
    });

// A tiled matmul sums in another order than the reference; the per-element bound from the magnitude of its
// terms lets it pass, at every size, with mixed magnitudes, subnormals and non-finite inputs.
TEST_F(Evaluate, ATiledMatmulWithItsBarriersPasses) {
  const Verdict verdict = evaluate("matmul", read_file(kKernels + "/matmul_tiled.comp"));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
}

TEST_F(Evaluate, ATiledMatmulMissingABarrierIsRejected) {
  const Verdict verdict = evaluate("matmul", read_file(kKernels + "/matmul_missing_barrier.comp"));
  EXPECT_TRUE(verdict.status == Status::INCORRECT_NUMERICAL || verdict.status == Status::NONDETERMINISTIC)
      << describe(verdict);
}

TEST_F(Evaluate, AMatmulRoundingItsProductsThroughF16IsRejected) {
  const Verdict verdict = evaluate("matmul", read_file(kKernels + "/matmul_f16_round_trip.comp"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
}

TEST_F(Evaluate, ARejectionSaysHowFarOffTheElementIsAndWhatWasAllowed) {
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/relu_adds_above_100.comp"));
  ASSERT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  const auto failed = std::find_if(verdict.cases.begin(), verdict.cases.end(),
                                   [](const CaseResult& r) { return !r.passed(); });
  ASSERT_NE(failed, verdict.cases.end());
  const Comparison& c = failed->comparison;
  EXPECT_NEAR(c.got_at_first - c.expected_at_first, 0.03, 1e-3);
  EXPECT_GT(c.allowed_at_first, 0);
  EXPECT_LT(c.allowed_at_first, 0.03);
  EXPECT_THAT(verdict.reason, ::testing::ContainsRegex("\\(off by 0\\.0[23][0-9]*, allowed [0-9.e-]+\\)"));
}

TEST_F(Evaluate, ACaseFailureNamesTheCaseAndTheTensor) {
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/writes_past_output.comp"));
  ASSERT_EQ(verdict.status, Status::OUT_OF_BOUNDS);
  ASSERT_FALSE(verdict.cases.empty());
  EXPECT_EQ(verdict.cases[0].name, "uniform");
  EXPECT_EQ(verdict.cases[0].status, Status::OUT_OF_BOUNDS);
  EXPECT_EQ(verdict.cases[0].tensor, "y");
  EXPECT_EQ(verdict.cases[0].dims, "batch=1");
  EXPECT_THAT(verdict.reason, HasSubstr("case uniform: "));
  EXPECT_THAT(verdict.reason, HasSubstr("of a tensor of 2048 elements"));
}

// An off-by-one store and nothing else outside: caught at the element it reached, whatever checks it (GPU-
// assisted validation where the layer is installed, else the guard bytes).
TEST_F(Evaluate, AStoreOnePastTheEndIsCaughtAtThatElement) {
  const Verdict verdict = evaluate("relu", R"(#version 450
// kernelgen: dispatch batch * 8 + 1 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i <= dims.batch * 2048u) y[i] = i < dims.batch * 2048u ? max(x[i], 0.0) : 1.0;
}
)");
  EXPECT_EQ(verdict.status, Status::OUT_OF_BOUNDS) << describe(verdict);
  EXPECT_THAT(verdict.reason,
              HasSubstr("wrote past the end of binding 1 (output y) at batch=1: element 2048 of a tensor of 2048"));
}

TEST_F(Evaluate, ACompileErrorKeepsGlslangsLogWithLineNumbers) {
  KernelBinary binary;
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/does_not_compile.comp"), &binary);
  EXPECT_EQ(verdict.status, Status::COMPILE_ERROR);
  EXPECT_THAT(verdict.log, HasSubstr("kernel.comp:13:"));
  EXPECT_TRUE(verdict.cases.empty()) << "nothing ran";
  EXPECT_TRUE(binary.spirv.empty()) << "no binary for a kernel that did not compile";
}

class EvaluateCatalogKernel : public Evaluate, public ::testing::WithParamInterface<std::string> {};

// A catalog kernel passes every case at every size, and evaluation hands back its compiled kernel and the
// grid its dispatch line declares.
TEST_P(EvaluateCatalogKernel, PassesEveryCaseAndHandsBackTheCompiledKernelAndItsGrid) {
  const std::string op = GetParam();
  const OpSpec spec = catalog_op(op).spec;
  const std::string source = read_file(kGenerated + "/" + op + "/kernel.comp");
  KernelBinary binary;
  const Verdict verdict = evaluate(op, source, &binary);
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  ASSERT_FALSE(binary.spirv.empty());
  // Every case at every size the op is validated at.
  const auto interface = reflect_spirv(binary.spirv);
  ASSERT_TRUE(interface);
  const auto sizes = validation_sizes(spec, interface->local_size, verdict.base_seed);
  ASSERT_EQ(verdict.cases.size(), case_names().size() * sizes.size());
  for (const CaseResult& c : verdict.cases) {
    EXPECT_EQ(c.status, Status::PASSED) << c.name << ": " << c.detail;
    EXPECT_GT(c.comparison.elements, 0) << c.name;
  }
  EXPECT_EQ(verdict.device, device_->info().name);

  std::string error;
  const auto declared = parse_dispatch_line(source, spec.dim_names(), &error);
  ASSERT_TRUE(declared) << error;
  EXPECT_EQ(binary.grid.text(), declared->text());
  // The grid evaluates at the dims the op is launched at, as the source's line says.
  const Grid bench = binary.grid.evaluate(spec.bench_dims());
  const Grid expected = declared->evaluate(spec.bench_dims());
  EXPECT_EQ(bench.x, expected.x);
  EXPECT_EQ(bench.y, expected.y);
  EXPECT_EQ(bench.z, expected.z);
  EXPECT_GT(uint64_t{bench.x} * bench.y * bench.z, 1u);
  EXPECT_GT(interface->local_size[0] * interface->local_size[1] * interface->local_size[2], 1u);
  EXPECT_FALSE(spirv_validation_error(binary.spirv));
}

INSTANTIATE_TEST_SUITE_P(Ops, EvaluateCatalogKernel, ::testing::Values("relu", "add", "matmul"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// One binding declared twice, as a vec4 view and a float view of the same input (both readonly), keeps the
// contract: a kernel may load wide where it can and element by element at an edge.
TEST_F(Evaluate, AnInputDeclaredAsTwoReadonlyViewsPasses) {
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/relu_two_views.comp"));
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
}

// argmax's checked-in kernel gives -0.0 the key of +0.0; without that line it ranks -0.0 below +0.0, and a row
// whose largest values are zeros of both signs gets its first +0.0 instead of its first zero.
TEST_F(Evaluate, AnArgmaxThatRanksNegativeZeroBelowPositiveZeroFailsTheSignedZerosCase) {
  const std::string right = read_file(kGenerated + "/argmax/kernel.comp");
  const std::string folds_negative_zero = "  if (bits == 0x80000000u) bits = 0u;";
  const size_t at = right.find(folds_negative_zero);
  ASSERT_NE(at, std::string::npos) << "the checked-in argmax changed: find the line that folds -0.0";
  std::string wrong = right;
  wrong.erase(at, folds_negative_zero.size());
  const Verdict verdict = evaluate("argmax", wrong);
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("case signed_zeros: "));
  const Verdict twin = evaluate("argmax", right);
  EXPECT_TRUE(twin.passed()) << describe(twin);
}

// A matmul that reads a's values more than 2^-26 below the largest magnitude of their block of 8 rows as 0 passes
// every case whose values span less than that (`large` loses such a value about once in 10^8), and fails
// `outliers`, where a value 2^30 above the rest of its block drops the rest. The catalog's matmul passes it
// (EvaluateCatalogKernel above).
TEST_F(Evaluate, AMatmulThatSharesOneScaleAmongABlockOfRowsFailsTheOutliersCase) {
  const Verdict verdict = evaluate("matmul", read_file(kKernels + "/matmul_block_scaled.comp"));
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("case outliers: "));
}

// add_bf16 is one rounding of an exact sum and declares TOLERANCE 0.5ulp: the checked-in kernel, which rounds to
// nearest even, passes every case at every size; its twin that truncates instead (off by one bf16 value at about
// half the elements, within bf16's default 8e-3) is rejected, the reason counting ulps.
TEST_F(Evaluate, AnAddBf16ThatTruncatesIsRejectedAtHalfAnUlpAndTheCheckedInOneThatRoundsPasses) {
  ASSERT_TRUE(catalog_op("add_bf16").spec.tolerance) << "ops/add_bf16 declares TOLERANCE 0.5ulp";
  EXPECT_EQ(catalog_op("add_bf16").spec.tolerance->ulp, 0.5);
  const Verdict truncates = evaluate("add_bf16", read_file(kKernels + "/add_bf16_truncates.comp"));
  EXPECT_EQ(truncates.status, Status::INCORRECT_NUMERICAL) << describe(truncates);
  EXPECT_THAT(truncates.reason, HasSubstr("(off by 1 ulp, allowed 0.5 ulp: the value rounded to nearest, ties to even)"));
  const Verdict rounds = evaluate("add_bf16", read_file(kGenerated + "/add_bf16/kernel.comp"));
  EXPECT_TRUE(rounds.passed()) << describe(rounds);
  // The same bits as the reference's, but where a device flushed subnormals (which the comparison lets it).
  for (const CaseResult& c : rounds.cases) {
    if (c.name != "subnormal") {
      EXPECT_EQ(c.comparison.max_abs_error, 0) << c.name << " at " << c.dims;
    }
  }
}

TEST_F(Evaluate, TimesAPassingKernelWhenAsked) {
  if (device_->info().timestamp_period_ns == 0) GTEST_SKIP() << device_->info().name << " has no timestamps";
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/relu_vec4.comp"), nullptr, 5);
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  ASSERT_TRUE(verdict.timing);
  EXPECT_EQ(verdict.timing->runs, 5);
  EXPECT_GE(verdict.timing->median_ns, verdict.timing->min_ns);
  EXPECT_GE(verdict.timing->min_ns, 0);
  EXPECT_EQ(verdict.timing->device, device_->info().name);
  const OpSpec spec = catalog_op("relu").spec;
  // Timed at CPU_BENCH_DIMS on lavapipe (the catalog's relu declares batch=1024 there), at BENCH_DIMS on a GPU.
  EXPECT_EQ(verdict.timing->dims, dims_text(spec, spec.bench_dims(is_cpu_device(device_->info()))));
  if (is_cpu_device(device_->info())) {
    EXPECT_EQ(verdict.timing->dims, "batch=1024");
  }
  EXPECT_THAT(describe(verdict), HasSubstr("GPU time: median"));
}

TEST_F(Evaluate, DescribeEndsWithTheSeedToReplay) {
  const Verdict verdict = evaluate("relu", read_file(kKernels + "/writes_half.comp"));
  EXPECT_THAT(describe(verdict),
              HasSubstr("replay with KERNELGEN_SEED=" + std::to_string(verdict.base_seed)));
}

// The interface check, on variations of a correct relu.
std::string relu_with(const std::string& from, const std::string& to) {
  std::string source = read_file(kKernels + "/relu_vec4.comp");
  const auto at = source.find(from);
  if (at == std::string::npos) throw std::logic_error("relu_vec4.comp has no `" + from + "`");
  return source.replace(at, from.size(), to);
}

TEST_F(Evaluate, TheVulkanMemoryModelRunsWhereTheDeviceHasIt) {
  // GL_NV_cooperative_matrix kernels declare the Vulkan memory model: the runtime enables it where the device
  // has it, and a device without it rejects the kernel by name.
  const Verdict verdict = evaluate("relu", relu_with("#version 450\n", "#version 450\n#pragma use_vulkan_memory_model\n"));
  if (device_->info().features.vulkan_memory_model) {
    EXPECT_TRUE(verdict.passed()) << describe(verdict);
  } else {
    EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
    EXPECT_THAT(verdict.reason, HasSubstr("declares the SPIR-V capability VulkanMemoryModel, which " +
                                          device_->info().name + " does not support"));
  }
}

// Capabilities against a device's features, on the reflected interface of the correct relu: NV and KHR
// cooperative matrices and subgroup arithmetic only where the device has them; what the runtime never enables
// nowhere, with a reason that does not forbid what the prompt offers.
TEST_F(Evaluate, EveryDeclaredCapabilityMustBeOneTheDeviceHasAndTheRuntimeEnables) {
  KernelBinary binary;
  ASSERT_TRUE(evaluate("relu", read_file(kKernels + "/relu_vec4.comp"), &binary).passed());
  SpirvInterface interface = *reflect_spirv(binary.spirv);
  const OpSpec spec = catalog_op("relu").spec;
  DeviceInfo device = device_->info();
  device.subgroup_operations = 0x1 | 0x4;  // basic and arithmetic
  EXPECT_FALSE(interface_mismatch(spec, interface, device)) << "relu as compiled";

  interface.capabilities = {"Shader", "GroupNonUniform", "GroupNonUniformArithmetic"};
  EXPECT_FALSE(interface_mismatch(spec, interface, device));
  device.subgroup_operations = 0x1;
  EXPECT_THAT(interface_mismatch(spec, interface, device).value_or(""),
              HasSubstr("declares the SPIR-V capability GroupNonUniformArithmetic, which " + device.name +
                        " does not support"));

  for (const auto& [capability, feature] :
       {std::pair{"CooperativeMatrixNV", &DeviceFeatures::cooperative_matrix_nv},
        std::pair{"CooperativeMatrixKHR", &DeviceFeatures::cooperative_matrix_khr}}) {
    interface.capabilities = {"Shader", capability};
    device.features.*feature = false;
    EXPECT_THAT(interface_mismatch(spec, interface, device).value_or(""),
                HasSubstr(std::string("declares the SPIR-V capability ") + capability + ", which " +
                          device.name + " does not support"));
    device.features.*feature = true;
    EXPECT_FALSE(interface_mismatch(spec, interface, device)) << capability;
  }

  for (const char* never : {"StoragePushConstant16", "4711"}) {
    interface.capabilities = {"Shader", never};
    const std::string reason = interface_mismatch(spec, interface, device).value_or("");
    EXPECT_THAT(reason, HasSubstr(std::string("capability ") + never +
                                  ", which kernelgen's runtime does not enable"));
    EXPECT_THAT(reason, Not(HasSubstr("KHR cooperative matrices"))) << "the prompt offers them where enabled";
  }
}

// relu on 16x16 tiles of matrices of `scope`, loaded and stored through GL_NV_cooperative_matrix2's tensor
// layouts: x and y as [batch * 128, 16], one tile per workgroup of `invocations`.
std::string relu_through_tensor_layouts(const std::string& scope, int invocations) {
  const std::string extensions = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
)";
  const std::string kernel = R"(// kernelgen: dispatch batch * 8 1 1
layout(local_size_x = INVOCATIONS) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  tensorLayoutNV<2> rows = createTensorLayoutNV(2);
  rows = setTensorLayoutDimensionNV(rows, dims.batch * 128u, 16u);
  coopmat<float, SCOPE, 16, 16, gl_MatrixUseAccumulator> m;
  coopMatLoadTensorNV(m, x, 0u, sliceTensorLayoutNV(rows, gl_WorkGroupID.x * 16u, 16u, 0u, 16u));
  for (int i = 0; i < m.length(); ++i) m[i] = max(m[i], 0.0);
  coopMatStoreTensorNV(m, y, 0u, sliceTensorLayoutNV(rows, gl_WorkGroupID.x * 16u, 16u, 0u, 16u));
}
)";
  return extensions + "#define SCOPE " + scope + "\n#define INVOCATIONS " + std::to_string(invocations) +
         "\n" + kernel;
}

// What a verdict's reason says of a capability the device lacks.
std::string lacks(const std::string& capability, const DeviceInfo& device) {
  return "declares the SPIR-V capability " + capability + ", which " + device.name + " does not support";
}

// What a kernel loading and storing through GL_NV_cooperative_matrix2's tensor layouts declares, each with whether
// the device has its feature.
std::vector<std::pair<std::string, bool>> tensor_addressing_capabilities(const DeviceFeatures& has) {
  return {{"VulkanMemoryModel", has.vulkan_memory_model},
          {"CooperativeMatrixKHR", has.cooperative_matrix_khr},
          {"CooperativeMatrixTensorAddressingNV", has.cooperative_matrix_tensor_addressing},
          {"TensorAddressingNV", has.cooperative_matrix_tensor_addressing}};
}

// A kernel of `features` (capability, whether the device has it) passes where the device has them all, and is
// otherwise rejected naming one it lacks.
void expect_passed_or_rejected_naming_what_lacks(const Verdict& verdict, const DeviceInfo& device,
                                                 const std::vector<std::pair<std::string, bool>>& features) {
  std::vector<::testing::Matcher<std::string>> lacking;
  for (const auto& [capability, has] : features)
    if (!has) lacking.push_back(HasSubstr(lacks(capability, device)));
  if (lacking.empty()) {
    EXPECT_TRUE(verdict.passed()) << describe(verdict);
    return;
  }
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, ::testing::AnyOfArray(lacking));
}

// spirv-val checks a SPIR-V 1.6 module for Vulkan 1.3; the device then decides: lavapipe has no cooperative
// matrices, so the kernel is rejected for the workgroup scope of its matrices, which the capabilities do not
// show.
TEST_F(Evaluate, ACooperativeMatrix2KernelPassesSpirvValAndRunsOnlyWhereTheDeviceHasWhatItUses) {
  KernelBinary binary;
  const Verdict verdict = evaluate("relu", relu_through_tensor_layouts("gl_ScopeWorkgroup", 256), &binary);
  ASSERT_NE(verdict.status, Status::COMPILE_ERROR) << describe(verdict);
  ASSERT_GE(binary.spirv.size(), 5u);
  EXPECT_EQ(binary.spirv[1], 0x00010600u);
  EXPECT_EQ(spirv_validation_error(binary.spirv), std::nullopt);
  const DeviceInfo& device = device_->info();
  const DeviceFeatures& has = device.features;
  if (device.api_version < VK_API_VERSION_1_3) {
    EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
    EXPECT_THAT(verdict.reason, HasSubstr(lacks("SPIR-V 1.6 (a Vulkan 1.3 device)", device)));
  } else if (!has.cooperative_matrix_workgroup_scope) {
    EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
    EXPECT_THAT(verdict.reason,
                HasSubstr(lacks("CooperativeMatrixKHR of workgroup scope (cooperativeMatrixWorkgroupScope)",
                                device)));
  } else {
    expect_passed_or_rejected_naming_what_lacks(verdict, device, tensor_addressing_capabilities(has));
  }
}

// Subgroup-scope matrices (a subgroup of 32 is one workgroup here) need no workgroup scope: a device without
// cooperative matrices rejects the kernel for a capability it lacks.
TEST_F(Evaluate, ACooperativeMatrix2KernelOfSubgroupMatricesIsRejectedNamingACapabilityTheDeviceLacks) {
  const DeviceInfo& device = device_->info();
  if (device.api_version < VK_API_VERSION_1_3) GTEST_SKIP() << device.name << " runs no SPIR-V 1.6";
  KernelBinary binary;
  const Verdict verdict = evaluate("relu", relu_through_tensor_layouts("gl_ScopeSubgroup", 32), &binary);
  ASSERT_NE(verdict.status, Status::COMPILE_ERROR) << describe(verdict);
  EXPECT_EQ(spirv_validation_error(binary.spirv), std::nullopt);
  EXPECT_THAT(verdict.reason, Not(HasSubstr("workgroup scope")));
  const DeviceFeatures& has = device.features;
  expect_passed_or_rejected_naming_what_lacks(verdict, device, tensor_addressing_capabilities(has));
}

// GL_KHR_cooperative_matrix: SPIR-V 1.5, validated for Vulkan 1.2, and run where the device has
// VK_KHR_cooperative_matrix's feature; elsewhere rejected as the device's lack, not as the runtime's refusal.
TEST_F(Evaluate, AKhrCooperativeMatrixKernelRunsOnlyWhereTheDeviceHasTheKhrFeature) {
  const std::string relu = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
// kernelgen: dispatch batch * 8 1 1
layout(local_size_x = 32) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
  coopMatLoad(m, x, gl_WorkGroupID.x * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
  for (int i = 0; i < m.length(); ++i) m[i] = max(m[i], 0.0);
  coopMatStore(m, y, gl_WorkGroupID.x * 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
)";
  KernelBinary binary;
  const Verdict verdict = evaluate("relu", relu, &binary);
  ASSERT_NE(verdict.status, Status::COMPILE_ERROR) << describe(verdict);
  EXPECT_EQ(binary.spirv.at(1), 0x00010500u);
  EXPECT_THAT(verdict.reason, Not(HasSubstr("runtime does not enable")));
  const DeviceFeatures& has = device_->info().features;
  expect_passed_or_rejected_naming_what_lacks(
      verdict, device_->info(),
      {{"VulkanMemoryModel", has.vulkan_memory_model}, {"CooperativeMatrixKHR", has.cooperative_matrix_khr}});
}

TEST_F(Evaluate, RejectsAReadonlyOutput) {
  // glslang refuses a store to a readonly buffer, so this kernel only reads its output.
  const Verdict verdict = evaluate("relu", R"(#version 450
// kernelgen: dispatch batch * 2 1 1
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { vec4 y[]; };
shared vec4 scratch[256];
void main() { scratch[gl_LocalInvocationIndex] = max(x[gl_GlobalInvocationID.x], y[gl_GlobalInvocationID.x]); }
)");
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("binding 1 (output y) is declared readonly"));
}

TEST_F(Evaluate, RejectsAnUndeclaredOutput) {
  const Verdict verdict =
      evaluate("relu", relu_with("layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };",
                                 "shared vec4 y[256];"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("binding 1 (output y) is not declared"));
}

TEST_F(Evaluate, RejectsAUniformBlockForAnInput) {
  const Verdict verdict =
      evaluate("relu", relu_with("layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };",
                                 "layout(set = 0, binding = 0, std140) uniform X { vec4 x[2048]; };"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("binding 0 (input x) is a Uniform resource"));
}

TEST_F(Evaluate, RejectsASecondDescriptorSet) {
  const Verdict verdict = evaluate("relu", relu_with("set = 0, binding = 1", "set = 1, binding = 1"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("(set 1, binding 1)"));
}

// An op without symbolic dims (contract 1) gets no push constants: relu at the one shape 4x8x16x16.
TEST_F(Evaluate, RejectsPushConstantsForAnOpWithoutDims) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({"name": "relu",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [4, 8, 16, 16]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8, 16, 16]}]})"));
  const Verdict verdict = evaluate_source(*device_, spec, catalog_op("relu").reference, R"(#version 450
// kernelgen: dispatch 8 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform P { uint kVec4s; };
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < kVec4s) y[i] = max(x[i], vec4(0.0));
}
)",
                                          {base_seed_from_environment(), 0});
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("push constants"));
}

TEST_F(Evaluate, RejectsAGridLargerThanTheDeviceAllows) {
  const uint32_t too_many = device_->info().max_workgroup_count[0] + 1;
  const Verdict verdict = evaluate("relu", relu_with("dispatch (batch * 512 + 31) / 32 1 1",
                                                     "dispatch " + std::to_string(too_many) + " 1 1"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("dispatch grid"));
}

TEST_F(Evaluate, RejectsSharedMemoryBeyondTheDevicesLimit) {
  const uint32_t vec4s = device_->info().max_shared_memory_bytes / 16 + 1;
  const Verdict verdict = evaluate(
      "relu", relu_with("void main() {\n  uint i = gl_GlobalInvocationID.x;",
                        "shared vec4 scratch[" + std::to_string(vec4s) +
                            "];\nvoid main() {\n  uint i = gl_GlobalInvocationID.x;\n  scratch[i % " +
                            std::to_string(vec4s) + "] = x[i];\n  barrier();"));
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("its shared variables need at least " + std::to_string(vec4s * 16) +
                                        " bytes per workgroup; the device allows " +
                                        std::to_string(device_->info().max_shared_memory_bytes)));
}

// A reference that ignores its inputs makes every kernel "correct" that writes zeros: the spec is broken,
// which is an error of the declaration, not a verdict on the kernel.
void zeros_reference(std::span<const ConstTensorView>, std::span<const TensorView> outputs, const Params&) {
  for (const TensorView& out : outputs) std::fill_n(out.as<float>(), out.size(), 0.0f);
}

TEST_F(Evaluate, ThrowsForAReferenceThatIgnoresItsInputs) {
  const OpSpec spec = catalog_op("relu").spec;
  try {
    evaluate_source(*device_, spec, &zeros_reference, read_file(kGenerated + "/relu/kernel.comp"), {1, 0});
    FAIL() << "validated against a degenerate reference";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(),
                HasSubstr("the reference gives the same outputs for two different random inputs"));
  }
}

}  // namespace
}  // namespace kernelgen
