// evaluate_isolated and the search on it: a kernel that never finishes is rejected as TIMEOUT within the limit
// and the next candidate is validated as usual; a validation process that crashes is a RUNTIME_ERROR naming
// the signal; a worker that cannot be started is a clear error, not a rejected candidate.
#include "kernelgen/isolated_validation.hpp"

#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>

#include "kernelgen/cases.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/files.hpp"
#include "kernelgen/prompt.hpp"
#include "kernelgen/search.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "runtime/scoped_env.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr double kLimit = 4;  // seconds; lavapipe validates the correct relu in well under one

std::string infinite_loop() { return read_file(std::string(KERNELGEN_TEST_ISOLATION_KERNELS_DIR) + "/infinite_loop.comp"); }
std::string relu() { return read_file(std::string(KERNELGEN_TEST_GENERATED_DIR) + "/relu/kernel.comp"); }

OpSpec relu_spec() { return load_op_spec(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json"); }

IsolationSettings settings() { return {KERNELGEN_TEST_TOOL, kLimit}; }

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every child this process started has been waited for: none is left running or as a zombie.
bool no_child_left() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

TEST(IsolatedValidation, PassesACorrectKernelAndHandsBackItsBinary) {
  KernelBinary binary;
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), relu(), {base_seed_from_environment(), 0}, &binary);
  EXPECT_TRUE(verdict.passed()) << describe(verdict);
  EXPECT_EQ(verdict.cases.size(), 10u);
  EXPECT_EQ(verdict.device, Device::describe_selected().name);
  ASSERT_FALSE(binary.spirv.empty());
  EXPECT_EQ(binary.grid.evaluate({}).x, 8u);
  EXPECT_EQ(reflect_spirv(binary.spirv)->local_size, (std::array<uint32_t, 3>{256, 1, 1}));
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
  const Verdict verdict = evaluate_isolated(settings(), relu_spec(), infinite_loop(), {1, 0}, &binary);
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

TEST(IsolatedValidation, AWorkerWithoutTheOpsReferenceIsAnErrorNamingTheOp) {
  OpSpec spec = relu_spec();
  spec.name = "not_in_the_tool";
  try {
    evaluate_isolated(settings(), spec, relu(), {1, 0});
    FAIL() << "validated without a reference";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("op 'not_in_the_tool' has no reference linked into"));
  }
}

TEST(IsolatedValidation, TheTimeoutSettingIsPositiveSeconds) {
  EXPECT_EQ(validation_timeout(std::nullopt), 60);
  EXPECT_EQ(validation_timeout("2.5"), 2.5);
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
  SearchConfig config;
  config.isolation = settings();
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
  EXPECT_EQ(outcome.totals.rejected.at("TIMEOUT"), 1);
  EXPECT_EQ(outcome.totals.accepted, 1);
  EXPECT_FALSE(outcome.best_binary.spirv.empty());
  EXPECT_LT(seconds, kLimit + 30);
  EXPECT_TRUE(no_child_left());
}

}  // namespace
}  // namespace kernelgen
