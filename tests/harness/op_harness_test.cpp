// The checks every op's generated test and benchmark run (cmake/harness), on the catalog's relu as the op_under_test.hpp
// generated for it describes it, and on the same op changed the ways the checks are there to catch: a wrapper
// idle past the validated sizes (as a kernel that skips work at the timed size would be), a checked-in source
// that is not what the wrapper embeds, and a kernel that writes half its output.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <kernelgen/compile/compile.hpp>
#include <kernelgen/harness/op_benchmarks.hpp>
#include <kernelgen/harness/op_tests.hpp>
#include <kernelgen/store/files.hpp>
#include <string>
#include <vector>

#include "op_under_test.hpp"  // relu's, in its build directory
#include "runtime/scoped_env.hpp"

namespace kernelgen::harness {
namespace {

// The largest batch in relu's DIMS: the idle wrapper below runs the kernel up to it and does nothing past it.
constexpr int64_t kLargestValidatedBatch = 16;

// The catalog's relu behind a Wrapper that forwards every call to it: the changed relus below override only
// what they change.
class ForwardingToRelu : public Wrapper {
 public:
  explicit ForwardingToRelu(Device& device) : relu_(relu_under_test().open(device)) {}
  void call(const DimValues& dims, std::vector<Buffer>& buffers) override { relu_->call(dims, buffers); }
  Submission submit(const DimValues& dims, std::vector<Buffer>& buffers) override {
    return relu_->submit(dims, buffers);
  }
  void record(Sequence& sequence, const DimValues& dims, const std::vector<const Buffer*>& buffers) override {
    relu_->record(sequence, dims, buffers);
  }
  Kernel& kernel() override { return relu_->kernel(); }
  const char* variant() const override { return relu_->variant(); }
  Grid launch_grid(const DimValues& dims) const override { return relu_->launch_grid(dims); }
  std::vector<uint32_t> dim_words(const DimValues& dims) const override { return relu_->dim_words(dims); }

 private:
  std::unique_ptr<Wrapper> relu_;
};

class IdlePastDims final : public ForwardingToRelu {
 public:
  using ForwardingToRelu::ForwardingToRelu;
  void call(const DimValues& dims, std::vector<Buffer>& buffers) override {
    if (dims[0] <= kLargestValidatedBatch) ForwardingToRelu::call(dims, buffers);
  }
  Submission submit(const DimValues& dims, std::vector<Buffer>& buffers) override {
    return dims[0] <= kLargestValidatedBatch ? ForwardingToRelu::submit(dims, buffers) : Submission();
  }
  void record(Sequence& sequence, const DimValues& dims, const std::vector<const Buffer*>& buffers) override {
    if (dims[0] <= kLargestValidatedBatch) ForwardingToRelu::record(sequence, dims, buffers);
  }
};

OpUnderTest idle_past_dims() {
  OpUnderTest op = relu_under_test();
  op.open = [](Device& device) -> std::unique_ptr<Wrapper> { return std::make_unique<IdlePastDims>(device); };
  return op;
}

// Relu recorded on every other record() only: a timed run whose output an earlier run left right would look right,
// as a kernel's that skips the work its output already holds does. The benchmark's timing records a run per
// record() and resets the outputs before each, so the output its idle last run of a set leaves is poison.
class EveryOtherRun final : public ForwardingToRelu {
 public:
  using ForwardingToRelu::ForwardingToRelu;
  void record(Sequence& sequence, const DimValues& dims, const std::vector<const Buffer*>& buffers) override {
    if (records_++ % 2 == 0) ForwardingToRelu::record(sequence, dims, buffers);
  }

 private:
  int records_ = 0;
};

std::vector<uint32_t> compiled(const std::string& path) {
  const Compilation compilation = compile_glsl(read_file(path));
  if (!compilation.ok) throw std::runtime_error(path + " does not compile:\n" + compilation.log);
  return compilation.spirv;
}

int run_benchmarks(const OpUnderTest& op) {
  std::string program = "bench", filter = "--benchmark_filter=BM_relu_gpu";
  std::vector<char*> argv{program.data(), filter.data(), nullptr};
  return run_op_benchmarks(op, 2, argv.data());
}

TEST(OpHarness, TheCatalogsReluPassesEveryCheck) {
  const OpUnderTest& relu = relu_under_test();
  checked_in_kernel_passes_validation(relu);
  runs_what_the_checked_in_source_compiles_to(relu);
  wrapper_call_matches_reference(relu);
  wrapper_call_at_the_timed_size_matches_reference(relu);
}

TEST(OpHarness, AWrapperIdlePastTheValidatedSizesPassesAtThemAndFailsAtTheTimedSize) {
  const OpUnderTest idle = idle_past_dims();
  wrapper_call_matches_reference(idle);
  EXPECT_NONFATAL_FAILURE(wrapper_call_at_the_timed_size_matches_reference(idle),
                          "the output of a run at the timed size batch=");
}

TEST(OpHarness, ACheckedInSourceOtherThanTheEmbeddedKernelFails) {
  OpUnderTest changed = relu_under_test();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kernelgen_op_harness_test";
  std::filesystem::create_directories(dir);
  std::string source = read_file(changed.generated_dir + "/kernel.comp");
  const std::string zero = "vec4(0.0)";
  ASSERT_NE(source.find(zero), std::string::npos) << "relu's kernel.comp changed: pick another edit";
  source.replace(source.find(zero), zero.size(), "vec4(0.5)");
  write_file_atomic(dir / "kernel.comp", source);
  changed.generated_dir = dir.string();
  EXPECT_NONFATAL_FAILURE(runs_what_the_checked_in_source_compiles_to(changed), "compiles to other SPIR-V");
  std::filesystem::remove_all(dir);
}

TEST(OpHarness, AKernelThatWritesHalfItsOutputFailsValidation) {
  static const std::vector<uint32_t> writes_half =
      compiled(std::string(KERNELGEN_TEST_SOURCE_DIR) + "/tests/kernels/writes_half.comp");
  OpUnderTest wrong = relu_under_test();
  wrong.spirv = writes_half;
  wrong.dispatch = "batch * 4 1 1";
  EXPECT_NONFATAL_FAILURE(checked_in_kernel_passes_validation(wrong), "INCORRECT_NUMERICAL");
}

// This machine as one without the Khronos layer (VK_LAYER_PATH at an empty folder; the layer's messages that CI's
// test preset turns on need it, so off) or without a CPU device (KERNELGEN_TEST_DEVICE_TYPE=discrete: lavapipe
// taken for a GPU alone), and without KERNELGEN_REDUCED_VALIDATION.
class Missing {
 public:
  enum Piece { layer, cpu_device };
  explicit Missing(Piece piece)
      : layer_path_("VK_LAYER_PATH", piece == layer ? empty_folder().c_str() : std::getenv("VK_LAYER_PATH")),
        type_("KERNELGEN_TEST_DEVICE_TYPE", piece == cpu_device ? "discrete" : nullptr) {}

 private:
  static std::string empty_folder() {
    const auto folder = std::filesystem::temp_directory_path() / "kernelgen_op_harness_no_layers";
    std::filesystem::create_directories(folder);
    return folder.string();
  }
  test::ScopedEnv layer_path_;
  test::ScopedEnv add_layer_path_{"VK_ADD_LAYER_PATH", nullptr};
  test::ScopedEnv layer_messages_{"KERNELGEN_VK_VALIDATION", "0"};
  test::ScopedEnv type_;
  test::ScopedEnv not_accepted_{"KERNELGEN_REDUCED_VALIDATION", nullptr};
};

// relu with its own kernel declared again as a variant: one every device runs.
OpUnderTest with_a_variant() {
  OpUnderTest op = relu_under_test();
  op.variants = {Variant{"same", op.spirv, op.dispatch}};
  return op;
}

TEST(OpHarness, WithoutTheLayerOrACpuDeviceTheValidationChecksFailNamingWhatToInstall) {
  for (const auto& [piece, named] :
       {std::pair{Missing::layer, "no Khronos validation layer (vulkan-validationlayers)"},
        std::pair{Missing::cpu_device, "no CPU Vulkan device (lavapipe: mesa-vulkan-drivers)"}}) {
    SCOPED_TRACE(named);
    const Missing missing(piece);
    EXPECT_NONFATAL_FAILURE(checked_in_kernel_passes_validation(relu_under_test()), named);
    EXPECT_NONFATAL_FAILURE(every_variant_this_device_can_run_passes_validation(with_a_variant()), named);
    EXPECT_NONFATAL_FAILURE(checked_in_kernel_passes_validation(relu_under_test()), "KERNELGEN_REDUCED_VALIDATION=1");
  }
}

TEST(OpHarness, ReducedValidationAcceptedValidatesAndSaysSo) {
  const Missing missing(Missing::layer);
  const test::ScopedEnv accepted("KERNELGEN_REDUCED_VALIDATION", "1");
  ::testing::internal::CaptureStdout();
  checked_in_kernel_passes_validation(relu_under_test());
  every_variant_this_device_can_run_passes_validation(with_a_variant());
  const std::string said = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(said.find("kernelgen: op relu: reduced validation, as KERNELGEN_REDUCED_VALIDATION=1 accepts: no Khronos "
                      "validation layer (vulkan-validationlayers)"),
            std::string::npos)
      << said;
}

TEST(OpHarness, AVariantThisDeviceRunsPassesValidationUnderTheFullProtocol) {
  every_variant_this_device_can_run_passes_validation(with_a_variant());
}

// Each run in a process of its own (a death test's, the test program run again), since Google Benchmark runs
// once a process.
TEST(OpHarness, TheBenchmarkFailsItsExitStatusWhenTheTimedOutputIsWrong) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(run_benchmarks(relu_under_test())), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(run_benchmarks(idle_past_dims())), ::testing::ExitedWithCode(1),
              "the output of the timed run at batch=");
}

TEST(OpHarness, TheBenchmarkTimesEveryRunFromResetOutputsOnTwoCases) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  OpUnderTest every_other = relu_under_test();
  every_other.open = [](Device& device) -> std::unique_ptr<Wrapper> { return std::make_unique<EveryOtherRun>(device); };
  // 3 warm-up and 31 timed runs alternate between the uniform and the normal case's buffers: the normal case's
  // last run, the 34th, records nothing.
  EXPECT_EXIT(std::exit(run_benchmarks(every_other)), ::testing::ExitedWithCode(1),
              "the output of the timed run at batch=[0-9]+, on the normal case");
}

}  // namespace
}  // namespace kernelgen::harness
