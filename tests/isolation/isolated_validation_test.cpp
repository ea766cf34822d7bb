// evaluate_isolated and the search on it: a kernel that never finishes is rejected as TIMEOUT within the limit
// and the next candidate is validated as usual; a validation process that crashes is a RUNTIME_ERROR naming
// the signal; a worker that cannot be started is a clear error, not a rejected candidate.
#include "kernelgen/validation/isolated_validation.hpp"

#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/kernel_source.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/search/search.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "runtime/scoped_env.hpp"
#include "support/relu_replies.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

// Seconds. A hung kernel is given kLimit. A kernel that should pass is given kPassLimit: lavapipe validates the
// correct relu in well under a second, but on an H100, with ctest -j8, the worker's device start and the per-
// transfer staging of the runtime took over 4 s.
constexpr double kLimit = 4;
constexpr double kPassLimit = 120;

std::string infinite_loop() { return read_file(std::string(KERNELGEN_TEST_ISOLATION_KERNELS_DIR) + "/infinite_loop.comp"); }
// A correct relu in workgroups of 32 (the search tests' reply): its largest size validated is batch=49, where
// the catalog's 256-wide kernel, which kernelgen.relu validates, is validated up to 385 in twice the time.
std::string relu() {
  return test::kReluKernel;
}

OpSpec relu_spec() { return load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json"); }

// relu's reference module, which kernelgen_add_op built beside its spec.
std::filesystem::path relu_module() { return std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/reference.so"; }

IsolationSettings settings() {
  return {.tool = KERNELGEN_TEST_TOOL, .timeout_s = kPassLimit, .reference_module = relu_module()};
}
IsolationSettings hang_settings() {
  return {.tool = KERNELGEN_TEST_TOOL, .timeout_s = kLimit, .reference_module = relu_module()};
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every child this process started has been waited for: none is left running or as a zombie.
bool no_child_left() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// The grid a kernel's source declares on its dispatch line.
GridExpression declared_grid(const OpSpec& spec, const std::string& source) {
  std::string error;
  const auto grid = parse_dispatch_line(source, spec.dim_names(), &error);
  if (!grid) throw std::logic_error("the test's kernel has no dispatch line: " + error);
  return *grid;
}

TEST(IsolatedValidation, PassesACorrectKernelAndHandsBackItsBinary) {
  const OpSpec spec = relu_spec();
  KernelBinary binary;
  const Verdict verdict =
      evaluate_isolated(settings(), spec, relu(), {base_seed_from_environment(), 0}, &binary);
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.device, Device::describe_selected().name);
  ASSERT_FALSE(binary.spirv.empty());
  EXPECT_EQ(binary.grid.text(), declared_grid(spec, relu()).text());
  const auto interface = reflect_spirv(binary.spirv);
  ASSERT_TRUE(interface);
  EXPECT_EQ(verdict.cases.size(), case_names().size() * validation_sizes(spec, interface->local_size, verdict.base_seed).size());
  EXPECT_TRUE(no_child_left());
}

// One worker per device: here the same device twice, as CI has only lavapipe. The passing kernel lists both,
// and is timed once (by the first).
TEST(IsolatedValidation, ValidatesOnEveryDeviceListedAndNamesThemAll) {
  const DeviceInfo selected = Device::describe_selected();
  IsolationSettings on_two = settings();
  on_two.devices = {selected, selected};
  const Verdict verdict = evaluate_isolated(on_two, relu_spec(), relu(), {base_seed_from_environment(), 0});
  ASSERT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.devices, (std::vector<std::string>{selected.name, selected.name}));
  EXPECT_THAT(describe(verdict), HasSubstr("passed on " + selected.name + ", " + selected.name));
  EXPECT_TRUE(no_child_left());
}

// A validation device that cannot be created (here: one the loader no longer lists) is an error naming it and why,
// not a validation on the others alone; its twin above validates on both.
TEST(IsolatedValidation, AValidationDeviceThatCannotBeCreatedIsAnErrorNamingIt) {
  const DeviceInfo selected = Device::describe_selected();
  DeviceInfo vanished = selected;
  vanished.index = 97;
  vanished.name = "Vanished GPU";
  IsolationSettings on_two = settings();
  on_two.devices = {selected, vanished};
  try {
    evaluate_isolated(on_two, relu_spec(), relu(), {base_seed_from_environment(), 0});
    ADD_FAILURE() << "validated without the device it could not create";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("validation device 97 (Vanished GPU) cannot be created: "));
    EXPECT_THAT(error.what(), HasSubstr("KERNELGEN_VALIDATION_DEVICES"));
  }
  EXPECT_TRUE(no_child_left());
}

TEST(IsolatedValidation, ARejectionOnOneOfSeveralDevicesNamesThatDevice) {
  const DeviceInfo selected = Device::describe_selected();
  IsolationSettings on_two = settings();
  on_two.devices = {selected, selected};
  // Wrong on every device (an H100's compiler folds relu_f16_round_trip.comp's rounding away).
  const std::string wrong = read_file(std::string(KERNELGEN_TEST_KERNELS_DIR) + "/relu_adds_above_100.comp");
  const Verdict verdict = evaluate_isolated(on_two, relu_spec(), wrong, {base_seed_from_environment(), 0});
  EXPECT_EQ(verdict.status, Status::INCORRECT_NUMERICAL) << describe(verdict);
  EXPECT_EQ(verdict.device, selected.name);
  EXPECT_THAT(verdict.reason, ::testing::StartsWith("on " + selected.name + ": case "));
  EXPECT_TRUE(verdict.devices.empty()) << "rejected by the first device, it passed on none";
}

// Lavapipe, where the loader lists it: the device a second subgroup size is validated on.
std::optional<DeviceInfo> lavapipe() {
  for (const DeviceInfo& device : Device::list())
    if (device.driver.find("llvmpipe") != std::string::npos) return device;
  return std::nullopt;
}

// Isolation settings that validate `op` (its spec and reference module from the build) on lavapipe alone.
IsolationSettings on_lavapipe_alone(const DeviceInfo& cpu, const std::string& op) {
  IsolationSettings on_lavapipe = settings();
  on_lavapipe.reference_module = std::string(KERNELGEN_TEST_SPECS_DIR) + "/" + op + "/reference.so";
  on_lavapipe.devices = {cpu};
  return on_lavapipe;
}

// Lavapipe validates at its own subgroup size (8 with AVX2) and again 4 wide: a kernel whose shared scratch has a
// slot per subgroup for subgroups of at least 8 passes at 8 and is rejected at 4, naming the size; its twin with
// a slot per invocation passes both, and the verdict lists both sizes.
TEST(IsolatedValidation, LavapipeValidatesAtASecondSubgroupSizeWhereScratchSizedForEightIsRejected) {
  const auto cpu = lavapipe();
  if (!cpu || cpu->subgroup_size <= 4)
    GTEST_SKIP() << "no lavapipe wider than 4 here (mesa-vulkan-drivers on a CPU with AVX): no second subgroup size";
  const OpSpec spec = load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/sum_lastdim/spec.json");
  const IsolationSettings on_lavapipe = on_lavapipe_alone(*cpu, "sum_lastdim");
  const std::string kernels = KERNELGEN_TEST_KERNELS_DIR;
  const std::vector<uint32_t> both = {cpu->subgroup_size, 4};

  const Verdict wrong = evaluate_isolated(
      on_lavapipe, spec, read_file(kernels + "/sum_lastdim_slots_for_subgroups_of_8.comp"), {base_seed_from_environment(), 0});
  EXPECT_EQ(wrong.status, Status::INCORRECT_NUMERICAL) << describe(wrong);
  EXPECT_EQ(wrong.subgroup_sizes, both) << describe(wrong);
  EXPECT_EQ(wrong.devices, std::vector<std::string>{cpu->name}) << "it passes at lavapipe's own width";
  EXPECT_THAT(wrong.reason, HasSubstr(" at subgroup size 4 (lavapipe's second width: LP_NATIVE_VECTOR_WIDTH=128, "
                                      "GALLIUM_OVERRIDE_CPU_CAPS=sse4.1): "));

  const Verdict right = evaluate_isolated(
      on_lavapipe, spec, read_file(kernels + "/sum_lastdim_slot_per_invocation.comp"), {base_seed_from_environment(), 0});
  EXPECT_TRUE(right.passed()) << describe(right);
  EXPECT_EQ(right.subgroup_sizes, both);
  EXPECT_EQ(right.devices, std::vector<std::string>{cpu->name});
  EXPECT_THAT(describe(right), HasSubstr("at subgroup sizes " + std::to_string(cpu->subgroup_size) + ", 4"));
  EXPECT_TRUE(no_child_left());
}

// Limited to SSE4.1, Mesa 22.3's lavapipe aborts on f16 conversions (no F16C): a kernel with 16-bit floats is
// validated at lavapipe's own width alone, and its verdict says so. matmul_f16's checked-in kernel, whose search
// candidates died of SIGABRT at the second width before.
TEST(IsolatedValidation, AKernelWithHalfFloatsMeetsLavapipesOwnWidthAloneAndSaysSo) {
  const auto cpu = lavapipe();
  if (!cpu || cpu->subgroup_size <= 4)
    GTEST_SKIP() << "no lavapipe wider than 4 here (mesa-vulkan-drivers on a CPU with AVX): no second subgroup size";
  const OpSpec spec = load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/matmul_f16/spec.json");
  const IsolationSettings on_lavapipe = on_lavapipe_alone(*cpu, "matmul_f16");
  const Verdict verdict = evaluate_isolated(
      on_lavapipe, spec, read_file(std::string(KERNELGEN_TEST_GENERATED_DIR) + "/matmul_f16/kernel.comp"),
      {base_seed_from_environment(), 0});
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.subgroup_sizes, std::vector<uint32_t>{cpu->subgroup_size}) << describe(verdict);
  EXPECT_TRUE(no_child_left());
}

// A GPU whose VK_EXT_subgroup_size_control range holds sizes besides its default is validated at its smallest
// and largest too, each a pass of its own. Lavapipe's range is its own width alone (8 to 8 with AVX2), so no
// kernel can pass at another required size here: lavapipe described with a range up to twice its width shows
// the passes and the verdict's plumbing. Its worker checks the size against the device it opens, which
// refuses it, and the kernel is rejected naming the size and how it was set (not passed, as a size skipped
// would leave it).
TEST(IsolatedValidation, ARangeBeyondTheDefaultAddsAPassAtItsLargestWhoseRejectionNamesTheSize) {
  const auto cpu = lavapipe();
  if (!cpu || !cpu->features.subgroup_size_control)
    GTEST_SKIP() << "no lavapipe with VK_EXT_subgroup_size_control here";
  DeviceInfo claimed = *cpu;
  claimed.max_subgroup_size = 2 * cpu->subgroup_size;
  IsolationSettings on_claimed = settings();
  on_claimed.devices = {claimed};
  const Verdict verdict =
      evaluate_isolated(on_claimed, relu_spec(), relu(), {base_seed_from_environment(), 0});
  const std::string own = std::to_string(cpu->subgroup_size), twice = std::to_string(2 * cpu->subgroup_size);
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("on " + cpu->name + " at subgroup size " + twice +
                                        " (required: the largest of the device's " + own + " to " + twice +
                                        ", VK_EXT_subgroup_size_control): kernelgen: " + cpu->name +
                                        " cannot run a kernel at subgroup size " + twice + ": its range is " +
                                        own + " to " + own));
  EXPECT_EQ(verdict.subgroup_sizes, (std::vector<uint32_t>{cpu->subgroup_size, 2 * cpu->subgroup_size}));
  EXPECT_EQ(verdict.devices, std::vector<std::string>{cpu->name}) << "it passes at the device's own size";
  EXPECT_TRUE(no_child_left());
}

// The worker makes the kernel's pipeline at the subgroup size the request requires: at the largest the
// selected device allows (lavapipe's own width here) a correct kernel passes there; at twice that the device
// refuses it, and the kernel is rejected with the runtime's reason.
TEST(IsolatedValidation, TheWorkerValidatesAtTheSubgroupSizeTheRequestRequires) {
  const DeviceInfo selected = Device::describe_selected();
  if (!selected.features.subgroup_size_control)
    GTEST_SKIP() << selected.name << " has no VK_EXT_subgroup_size_control";
  ValidationOptions at_largest{base_seed_from_environment(), 0};
  at_largest.required_subgroup_size = selected.max_subgroup_size;
  const Verdict allowed = evaluate_isolated(settings(), relu_spec(), relu(), at_largest);
  EXPECT_TRUE(allowed.passed()) << describe(allowed);
  EXPECT_EQ(allowed.subgroup_sizes, std::vector<uint32_t>{selected.max_subgroup_size});

  ValidationOptions beyond = at_largest;
  beyond.required_subgroup_size = 2 * selected.max_subgroup_size;
  const Verdict refused = evaluate_isolated(settings(), relu_spec(), relu(), beyond);
  EXPECT_EQ(refused.status, Status::RUNTIME_ERROR) << describe(refused);
  EXPECT_THAT(refused.reason, HasSubstr("cannot run a kernel at subgroup size " +
                                        std::to_string(beyond.required_subgroup_size) + ": its range is "));
  EXPECT_EQ(refused.subgroup_sizes, std::vector<uint32_t>{beyond.required_subgroup_size});
  EXPECT_TRUE(no_child_left());
}

// The faults a GPU build can meet, through the worker's test hook: each is a verdict naming the device, and
// the worker process that met it is gone.
TEST(IsolatedValidation, ALostDeviceIsARuntimeErrorNamingTheDevice) {
  const test::ScopedEnv fault("KERNELGEN_TEST_WORKER_FAULT", "device_lost");
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), relu(), {base_seed_from_environment(), 0});
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("the GPU was lost"));
  EXPECT_THAT(verdict.reason, HasSubstr("[VK_ERROR_DEVICE_LOST] on " + Device::describe_selected().name));
  EXPECT_TRUE(no_child_left());
}

TEST(IsolatedValidation, OutOfDeviceMemoryIsARuntimeErrorSayingWhatTheSizesNeed) {
  const test::ScopedEnv fault("KERNELGEN_TEST_WORKER_FAULT", "out_of_memory");
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), relu(), {base_seed_from_environment(), 0});
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("out of device memory [VK_ERROR_OUT_OF_DEVICE_MEMORY] on "));
  EXPECT_THAT(verdict.reason,
              HasSubstr("its largest size validated, batch=49, needs 802816 bytes of tensors"));
}

TEST(IsolatedValidation, OutOfDeviceMemoryCountsTheTensorsNotTheBytesAnOpDeclaresForItsRoofline) {
  const test::ScopedEnv fault("KERNELGEN_TEST_WORKER_FAULT", "out_of_memory");
  OpSpec spec = relu_spec();
  spec.bytes = "batch";  // 49 at batch=49: what it moves, as far as the roofline is told
  const Verdict verdict = evaluate_isolated(settings(), spec, relu(), {base_seed_from_environment(), 0});
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.reason,
              HasSubstr("its largest size validated, batch=49, needs 802816 bytes of tensors"));
}

TEST(IsolatedValidation, AKernelWhoseTimingFailsStillPassesUntimedSayingWhy) {
  const test::ScopedEnv fault("KERNELGEN_TEST_WORKER_FAULT", "timing");
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), relu(), {base_seed_from_environment(), 3});
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_FALSE(verdict.timing);
  EXPECT_THAT(verdict.timing_error, HasSubstr("timing the kernel"));
  EXPECT_THAT(describe(verdict), HasSubstr("not timed: timing the kernel"));
}

TEST(IsolatedValidation, AnUnknownFaultHookIsAnErrorNotAVerdict) {
  const test::ScopedEnv fault("KERNELGEN_TEST_WORKER_FAULT", "meteor");
  EXPECT_THROW(evaluate_isolated(settings(), relu_spec(), relu(), {1, 0}), std::runtime_error);
}

// Contract v2 through the worker: the spec's dims travel to the child, and the grid comes back as the
// expression over them that the kernel's dispatch line declares, not as numbers at one size.
TEST(IsolatedValidation, HandsBackAV2KernelsGridAsItsDispatchExpression) {
  const OpSpec spec = parse_op_spec(nlohmann::json::parse(R"({"name": "relu", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", 8, 16, 16]}],
    "outputs": [{"name": "y", "dtype": "f32", "shape": ["batch", 8, 16, 16]}],
    "dims": {"batch": [1, 3, 5]}})"));
  const std::string source = relu();
  KernelBinary binary;
  const Verdict verdict =
      evaluate_isolated(settings(), spec, source, {base_seed_from_environment(), 0}, &binary);
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  ASSERT_FALSE(binary.spirv.empty());
  EXPECT_EQ(binary.grid.text(), "(batch * 512 + 31) / 32 1 1");
  const GridExpression reparsed = GridExpression::parse(binary.grid.text(), spec.dim_names());
  EXPECT_EQ(reparsed.text(), declared_grid(spec, source).text());
  EXPECT_TRUE(reparsed.uses_dims());
  for (int64_t batch : {1, 3, 5, 49}) {
    const DimValues dims{batch};
    EXPECT_EQ(binary.grid.evaluate(dims).x, static_cast<uint32_t>((batch * 512 + 31) / 32))
        << "batch=" << batch;
    EXPECT_EQ(reparsed.evaluate(dims).x, binary.grid.evaluate(dims).x) << "batch=" << batch;
  }
  // Validated at every size, as in process: 1, 3, 5 and a ragged batch.
  std::set<std::string> sizes;
  for (const CaseResult& c : verdict.cases) sizes.insert(c.dims);
  EXPECT_EQ(sizes.size(), validation_sizes(spec, {32, 1, 1}, verdict.base_seed).size());
  EXPECT_TRUE(sizes.count("batch=1") && sizes.count("batch=3") && sizes.count("batch=5"))
      << describe(verdict);
  EXPECT_TRUE(no_child_left());
}

// A v2 kernel rejected in the child comes back with the size it failed at.
TEST(IsolatedValidation, AV2RejectionNamesTheDimsItFailedAt) {
  const OpSpec spec = relu_spec();
  ASSERT_FALSE(spec.dims.empty()) << "the catalog's relu has a symbolic batch";
  const Verdict verdict = evaluate_isolated(settings(), spec, R"(#version 450
// kernelgen: dispatch batch / 2 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], vec4(0.0));
}
)",
                                            {1, 0});
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("at batch=1"));
  EXPECT_THAT(verdict.reason, HasSubstr("round up: (batch + 1) / 2"));
  EXPECT_TRUE(no_child_left());
}

TEST(IsolatedValidation, RejectsTheSameKernelsAsInProcessValidation) {
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), "#version 450\nvoid main() {}\n", {1, 0});
  EXPECT_EQ(verdict.status, Status::INTERFACE_MISMATCH);
  EXPECT_THAT(verdict.reason, HasSubstr("kernelgen: dispatch X Y Z"));
}

TEST(IsolatedValidation, RejectsAnInfiniteLoopAsTimeoutWithinTheLimit) {
  const auto start = Clock::now();
  KernelBinary binary;
  const Verdict verdict = evaluate_isolated(hang_settings(), relu_spec(), infinite_loop(), {1, 0}, &binary);
  const double seconds = seconds_since(start);
  EXPECT_EQ(verdict.status, Status::TIMEOUT) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("did not finish within 4 s; an infinite loop or a far too slow kernel"));
  EXPECT_GE(seconds, kLimit);
  EXPECT_LT(seconds, kLimit + 2) << "the hung validation process was not killed in time";
  EXPECT_FALSE(binary.spirv.empty()) << "it compiled before it hung";
  EXPECT_EQ(verdict.device, Device::describe_selected().name);
  EXPECT_TRUE(no_child_left());
  std::printf("TIMEOUT after %.2f s (limit %.0f s)\n", seconds, kLimit);
}

TEST(IsolatedValidation, RejectsAValidationProcessThatCrashesAsRuntimeError) {
  test::ScopedEnv abort_worker("KERNELGEN_TEST_WORKER_ABORT", "1");
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), relu(), {1, 0});
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.reason, HasSubstr("the validation process died of signal 6 (SIGABRT"));
  EXPECT_TRUE(no_child_left());
}

TEST(IsolatedValidation, AMissingWorkerIsAnErrorNamingIt) {
  try {
    evaluate_isolated({"/nonexistent/bin/kernelgen", kLimit}, relu_spec(), relu(), {1, 0});
    FAIL() << "validated without a worker";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("the validation worker /nonexistent/bin/kernelgen cannot be run: No such file"));
  }
}

// The worker runs untrusted kernels: it gets an allowlist of this process's environment (worker_environment.hpp),
// what Vulkan and the device choice need and no secret. A stand-in worker prints the variables it was given to
// stderr, which comes back as the verdict's log.
TEST(IsolatedValidation, TheWorkerGetsWhatVulkanNeedsAndNoSecret) {
  test::ScratchDir dir;
  const std::filesystem::path worker = dir.path() / "print_environment";
  write_file_atomic(worker, "#!/bin/sh\nenv >&2\nexit 1\n");
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  test::ScopedEnv openai("OPENAI_API_KEY", "sk-openai-SECRET");
  test::ScopedEnv anthropic("ANTHROPIC_API_KEY", "sk-ant-SECRET");
  test::ScopedEnv other("KERNELGEN_TEST_SERVICE_API_KEY", "sk-other-SECRET");
  test::ScopedEnv token("MY_TOKEN", "tok-SECRET");
  test::ScopedEnv aws("AWS_SECRET_ACCESS_KEY", "aws-SECRET");
  test::ScopedEnv url("OPENAI_BASE_URL", "https://gateway.example.com/v1");
  test::ScopedEnv driver("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json");
  test::ScopedEnv kept("KERNELGEN_TEST_KEPT", "kept");

  const Verdict verdict = evaluate_isolated({worker, kLimit}, relu_spec(), relu(), {1, 0});
  EXPECT_EQ(verdict.status, Status::RUNTIME_ERROR) << describe(verdict);
  EXPECT_THAT(verdict.log, HasSubstr("VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"));
  EXPECT_THAT(verdict.log, HasSubstr("KERNELGEN_TEST_KEPT=kept"));
  EXPECT_THAT(verdict.log, Not(HasSubstr("SECRET")));
  EXPECT_THAT(verdict.log, Not(HasSubstr("_API_KEY")));
  EXPECT_THAT(verdict.log, Not(HasSubstr("MY_TOKEN")));
  EXPECT_THAT(verdict.log, Not(HasSubstr("OPENAI_BASE_URL")));
  EXPECT_EQ(::getenv("OPENAI_API_KEY"), std::string("sk-openai-SECRET")) << "this process keeps its own";
}

TEST(IsolatedValidation, AModuleWithoutTheOpsReferenceIsAnErrorNamingTheModuleAndTheOp) {
  OpSpec spec = relu_spec();
  spec.name = "not_in_the_module";
  try {
    evaluate_isolated(settings(), spec, relu(), {1, 0});
    FAIL() << "validated without a reference";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("op 'not_in_the_module': reference module " + relu_module().string() +
                                        " registers no reference for the op (references known: relu)"));
  }
}

TEST(IsolatedValidation, AMissingReferenceModuleIsAnErrorNamingItAndHowToBuildIt) {
  IsolationSettings without = settings();
  without.reference_module = "/nonexistent/relu/reference.so";
  try {
    evaluate_isolated(without, relu_spec(), relu(), {1, 0});
    FAIL() << "validated without a reference module";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("op 'relu': reference module /nonexistent/relu/reference.so does not exist. "
                                        "kernelgen_add_op(relu) builds it as the target "
                                        "kernelgen_reference_module_relu"));
  }
}

TEST(IsolatedValidation, TheTimeoutSettingIsPositiveSeconds) {
  EXPECT_EQ(validation_timeout(std::nullopt), 60);
  EXPECT_EQ(validation_timeout("2.5"), 2.5);
  // Two searches at once (kernelgen_regenerate's pool) double the default, not a limit that was set.
  EXPECT_EQ(validation_timeout(std::nullopt, 2), 120);
  EXPECT_EQ(validation_timeout("2.5", 2), 2.5);
  for (const char* bad : {"0", "-1", "soon", "5s", "nan"}) {
    try {
      validation_timeout(std::string(bad));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr("KERNELGEN_VALIDATION_TIMEOUT_S='" + std::string(bad) + "'"));
    }
  }
}

TEST(IsolatedSearch, GoesOnAfterAKernelThatHangsAndAcceptsTheNext) {
  const OpSpec spec = relu_spec();
  const std::string reference_text = read_file(spec.reference_path);
  const std::string hash = spec_hash(spec, reference_text, prompt_template_version());
  // One limit serves both candidates: three times what the correct one takes here, and at least kLimit.
  const auto calibration = Clock::now();
  ASSERT_TRUE(evaluate_isolated(settings(), spec, relu(), {1, 0}).passed());
  const double limit = std::max(kLimit, 3 * seconds_since(calibration) + 2);
  SearchConfig config;
  config.isolation = {.tool = KERNELGEN_TEST_TOOL, .timeout_s = limit, .reference_module = relu_module()};
  config.base_seed = base_seed_from_environment();
  config.timing_runs = 3;
  const std::vector<Candidate> declared = {{infinite_loop(), "hand-written", "infinite_loop.comp"},
                                           {relu(), "hand-written", "relu.comp"}};

  const auto start = Clock::now();
  const SearchOutcome outcome = run_search(Device::describe_selected(), spec, reference_text, hash, declared, config);
  const double seconds = seconds_since(start);

  ASSERT_TRUE(outcome.best) << outcome.stop_reason;
  EXPECT_EQ(outcome.best->origin, "relu.comp");
  EXPECT_EQ(outcome.candidates, 2);
  // Killed at the limit (TIMEOUT), unless the driver ends the endless dispatch first, as NVIDIA's did on an
  // H100 with a 20 s limit (the device is lost: RUNTIME_ERROR). Either way it is rejected and the search goes on.
  int hung = 0;
  for (const auto& [status, count] : outcome.totals.rejected) {
    std::printf("rejected %s: %d\n", status.c_str(), count);
    if (status == "TIMEOUT" || status == "RUNTIME_ERROR") hung += count;
  }
  EXPECT_EQ(hung, 1);
  EXPECT_EQ(outcome.totals.accepted, 1);
  EXPECT_FALSE(outcome.best_binary.spirv.empty());
  EXPECT_LT(seconds, 2 * limit + 30);
  EXPECT_TRUE(no_child_left());
}

}  // namespace
}  // namespace kernelgen
