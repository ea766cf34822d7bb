// The build step killed with SIGKILL at random moments of a regeneration (the LLM replay, validation in child
// processes, the records, the check-in): after every kill generated/<op>/ is absent or a complete current
// kernel, never half of one, and every record in the candidate log parses. Temporary files may remain,
// hidden; the next run removes those of dead processes.
//
// The regeneration replays a cassette written here, of the search tests' relu replies (workgroups of 32)
// timed at a batch of 64: the same stages as the catalog's cassette, whose 256-wide kernels made a complete
// run 14.5 s on lavapipe where this one takes 5.6, most of it validation at the kernels' largest sizes.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "fake_llm_server.hpp"
#include "generator/scratch_dir.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/search/prompt.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/store/manifest.hpp"
#include "relu_replies.hpp"

extern char** environ;

namespace kernelgen {
namespace {

constexpr int kKills = 8;  // each CI run draws its own moments (the seed is printed)

class CrashSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = nlohmann::json::parse(read_file(std::string(KERNELGEN_TEST_SPECS_DIR) + "/relu/spec.json"));
    spec["generated_dir"] = (scratch_.path() / "generated" / "relu").string();
    spec["bench_dims"] = spec["cpu_bench_dims"] = {{"batch", 64}};
    spec_path_ = scratch_.path() / "relu.json";
    write_file_atomic(spec_path_, spec.dump());
    spec_ = load_op_spec(spec_path_.string());
    hash_ = spec_hash(spec_, read_file(spec_.reference_path), prompt_template_version());
    // Round 1 rejects both replies (no code, a wrong kernel); round 2 accepts both (a slow and a fast
    // kernel).
    std::filesystem::create_directories(cassettes_dir());
    write_file_atomic(cassettes_dir() / "relu.json",
                      test::hand_written_cassette({{"relu/r1/s0", test::kReplyWithoutCode},
                                                   {"relu/r1/s1", test::fenced(test::kLeakyReluKernel)},
                                                   {"relu/r2/s0", test::fenced(test::kSlowReluKernel)},
                                                   {"relu/r2/s1", test::fenced(test::kReluKernel)}}));
  }

  // Runs the build step to its end; returns how long it took.
  double complete_run() const {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = start_build_step();
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    EXPECT_EQ(check_generated(spec_.generated_dir, hash_, spec_.dim_names()).state,
              StoreCheck::State::current);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  int hidden_entries() const {
    int count = 0;
    for (const auto& directory : {scratch_.path() / "generated", log_dir()})
      for (const auto& entry : std::filesystem::directory_iterator(directory))
        count += entry.path().filename().string().front() == '.';
    return count;
  }

  // `kernelgen build-op --regenerate` from the relu cassette; returns its pid.
  pid_t start_build_step() const {
    const std::string out = (scratch_.path() / "relu.cpp").string();
    const std::string log = log_dir().string();
    const std::string cassettes = cassettes_dir().string();
    const char* argv[] = {KERNELGEN_TEST_TOOL,
                          "build-op",
                          "--regenerate",
                          "--spec",
                          spec_path_.c_str(),
                          "--reference",
                          KERNELGEN_TEST_SPECS_DIR "/relu/reference.so",
                          "--out",
                          out.c_str(),
                          "--set",
                          "KERNELGEN_MODEL=replay",
                          "--cassette-dir",
                          cassettes.c_str(),
                          "--log-dir",
                          log.c_str(),
                          nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, argv[0], &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error(std::string("cannot start kernelgen: ") + std::strerror(error));
    return pid;
  }

  std::filesystem::path log_dir() const { return scratch_.path() / "log"; }
  std::filesystem::path cassettes_dir() const { return scratch_.path() / "cassettes"; }

  // generated/relu/ is absent or current; every visible file of the log is a whole record (or the whole cache of
  // the device's peaks).
  void expect_nothing_half_written(const std::string& when) const {
    const StoreCheck check = check_generated(spec_.generated_dir, hash_, spec_.dim_names());
    EXPECT_TRUE(check.state == StoreCheck::State::missing || check.state == StoreCheck::State::current)
        << when << ": " << check.problem;
    for (const auto& entry : std::filesystem::directory_iterator(scratch_.path() / "generated")) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "relu" || name.front() == '.') << when << ": unexpected " << entry.path();
    }
    if (!std::filesystem::exists(log_dir())) return;
    for (const auto& entry : std::filesystem::directory_iterator(log_dir())) {
      const std::string name = entry.path().filename().string();
      if (name.front() == '.') continue;  // a temporary file, never read as a record
      EXPECT_EQ(entry.path().extension(), ".json") << when << ": " << name;
      try {
        const auto record = nlohmann::json::parse(read_file(entry.path()));
        if (name == "device_peaks.json") {  // the probe's cache, beside the records
          EXPECT_TRUE(record.is_object()) << when << ": " << name;
          continue;
        }
        EXPECT_TRUE(record.is_object() && record.contains("uuid") && record.contains("verdict")) << when << ": " << name;
      } catch (const std::exception& error) {
        ADD_FAILURE() << when << ": " << name << " is not a record: " << error.what();
      }
    }
  }

  test::ScratchDir scratch_;
  std::filesystem::path spec_path_;
  OpSpec spec_;
  std::string hash_;
};

TEST_F(CrashSafety, KillingTheBuildStepAtAnyMomentLeavesNothingHalfWritten) {
  std::filesystem::create_directories(scratch_.path() / "generated");
  // The kill moments span one whole run: the replay, each candidate's validation, the records, the check-in.
  const double run_seconds = complete_run();
  const unsigned seed = std::random_device{}();
  std::printf("a complete run takes %.2f s; kill moments drawn from [0, %.2f] s with seed %u\n", run_seconds,
              run_seconds, seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> moment(0, run_seconds);
  int finished_before_kill = 0;
  for (int k = 0; k < kKills; ++k) {
    const double after = moment(rng);
    // Without a kernel, so that every run checks one in: a regeneration that picks the checked-in kernel again
    // writes nothing to generated/ (selection/incumbent.hpp), and its kill would test only the log.
    std::filesystem::remove_all(spec_.generated_dir);
    const pid_t pid = start_build_step();
    std::this_thread::sleep_for(std::chrono::duration<double>(after));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) ++finished_before_kill;
    expect_nothing_half_written("kill " + std::to_string(k + 1) + " after " + std::to_string(after) + " s");
  }
  std::printf("%d of %d runs finished before their kill; %d hidden temporaries left behind\n", finished_before_kill,
              kKills, hidden_entries());

  // A run left to finish checks a complete kernel in and clears what the killed runs left behind.
  complete_run();
  expect_nothing_half_written("after a complete run");
  EXPECT_EQ(hidden_entries(), 0);
}

// What a killed process left half-written goes; a live process's work in progress stays.
TEST(AbandonedTemporaries, ThoseOfDeadProcessesAreRemovedAndThoseOfLiveOnesKept) {
  test::ScratchDir scratch;
  pid_t dead = 0;
  const char* argv[] = {"/bin/true", nullptr};
  ASSERT_EQ(posix_spawn(&dead, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  ::waitpid(dead, nullptr, 0);
  const auto in = [&](const std::string& name) { return scratch.path() / name; };
  const std::string live = std::to_string(::getppid());
  write_file_atomic(in(".c_relu_h1.json.tmp" + std::to_string(dead) + "_42"), "{\"uuid\":");
  std::filesystem::create_directories(in(".relu.new" + std::to_string(dead) + "_7") / "kernel.comp");
  write_file_atomic(in(".c_relu_h2.json.tmp" + live + "_42"), "{");
  write_file_atomic(in(".notes"), "a user's own hidden file");
  write_file_atomic(in("c_relu_h3.json"), "{}");

  EXPECT_EQ(remove_abandoned_siblings(scratch.path()), 2);
  std::set<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(scratch.path()))
    left.insert(entry.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{".c_relu_h2.json.tmp" + live + "_42", ".notes", "c_relu_h3.json"}));
}

}  // namespace
}  // namespace kernelgen
