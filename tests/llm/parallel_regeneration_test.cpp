// `cmake --build -j` may run several ops' build steps at once: three catalog ops regenerated from their
// cassettes by three concurrent kernelgen processes, into one candidate log, must each end with a complete
// generated/<op>/ and every record intact. Three validations at once on two cores, under the sanitizers in
// CI, take minutes: each gets a limit that only a hang reaches. Each op is timed at its largest DIMS, not its
// BENCH_DIMS: what is timed does not change what this test checks, and add's regeneration alone took 38 s on
// lavapipe at its 4096 rows of CPU_BENCH_DIMS, 18 s at 100.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/manifest.hpp"
#include "kernelgen/store/record.hpp"

namespace kernelgen {
namespace {

// An elementwise op, one with an optimisation round (add) and a reduction; matmul's validation alone would take
// most of a minute.
const char* const kOps[] = {"relu", "add", "sum_lastdim"};

TEST(ParallelRegeneration, ConcurrentBuildStepsLeaveEveryKernelAndRecordIntact) {
  test::ScratchDir scratch;
  const auto log = scratch.path() / "log";
  std::string command = "set -e; pids=;";
  for (const char* op : kOps) {
    auto spec = nlohmann::json::parse(read_file(std::string(KERNELGEN_TEST_SPECS_DIR) + "/" + op + "/spec.json"));
    spec["generated_dir"] = (scratch.path() / "generated" / op).string();
    for (const auto& [dim, sizes] : spec["dims"].items())
      spec["bench_dims"][dim] = spec["cpu_bench_dims"][dim] = *std::max_element(sizes.begin(), sizes.end());
    const auto spec_path = scratch.path() / (std::string(op) + ".json");
    write_file_atomic(spec_path, spec.dump());
    command += std::string(" \"") + KERNELGEN_TEST_TOOL + "\" build-op --spec \"" + spec_path.string() +
               "\" --reference \"" + KERNELGEN_TEST_SPECS_DIR + "/" + op + "/reference.so\" --out \"" +
               (scratch.path() / (std::string(op) + ".cpp")).string() +
               "\" --set KERNELGEN_MODEL=replay --set KERNELGEN_VALIDATION_TIMEOUT_S=900 --cassette-dir \"" + KERNELGEN_TEST_CASSETTES_DIR + "\" --log-dir \"" +
               log.string() + "\" 2>/dev/null & pids=\"$pids $!\";";
  }
  command += " for pid in $pids; do wait $pid; done";
  ASSERT_EQ(std::system(("bash -c '" + command + "'").c_str()), 0) << command;

  for (const char* op : kOps) {
    const OpSpec spec = load_op_spec((scratch.path() / (std::string(op) + ".json")).string());
    const auto hash = spec_hash(spec, read_file(spec.reference_path), prompt_template_version());
    const StoreCheck check = check_generated(spec.generated_dir, hash, spec.dim_names());
    EXPECT_EQ(check.state, StoreCheck::State::current) << op << ": " << check.problem;
    EXPECT_TRUE(std::filesystem::exists(scratch.path() / (std::string(op) + ".cpp"))) << op;
  }
  const auto records = load_records(log);
  // relu and sum_lastdim: two rounds of two; add: the same and an optimisation round of two ideas.
  EXPECT_EQ(records.size(), 4u + 6u + 4u);
  int correct = 0;
  for (const auto& record : records) correct += record["status"] == "correct";
  EXPECT_EQ(correct, 2 + 4 + 2);
  for (const auto& entry : std::filesystem::directory_iterator(log))
    EXPECT_NE(entry.path().filename().string().front(), '.') << "a temporary file was left behind: " << entry.path();
}

}  // namespace
}  // namespace kernelgen
