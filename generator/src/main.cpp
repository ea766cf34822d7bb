// The kernelgen build-time tool. Each command is a thin shell around one stage of the library.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernelgen/build_step.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/files.hpp"
#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/validation/validation_devices.hpp"
#include "kernelgen/llm/settings.hpp"
#include "kernelgen/log_commands.hpp"
#include "kernelgen/reference_module.hpp"

namespace {

int validate_command(const std::string& spec_path, std::filesystem::path reference_module,
                     const std::string& kernel_path, bool json_output, int timing_runs, double timeout_s) {
  const kernelgen::OpSpec spec = kernelgen::load_op_spec(spec_path);
  if (reference_module.empty()) reference_module = kernelgen::default_reference_module(spec_path);
  kernelgen::load_reference(reference_module, spec.name);  // fails here, rather than in every worker
  const std::string source = kernelgen::read_file(kernel_path);
  const uint64_t seed = kernelgen::base_seed_from_environment();
  const kernelgen::Verdict verdict =
      kernelgen::evaluate_isolated({.tool = {}, .timeout_s = timeout_s,
                                    .devices = kernelgen::validation_devices_from_environment(),
                                    .reference_module = reference_module},
                                   spec, source,
                                   {seed, timing_runs, kernelgen::stress_runs_from_environment()});
  if (json_output) {
    std::printf("%s\n", nlohmann::json(verdict).dump(2).c_str());
  } else {
    std::printf("%s: %s", kernel_path.c_str(), kernelgen::describe(verdict).c_str());
  }
  return verdict.passed() ? 0 : 1;
}

int devices_command() {
  for (const auto& info : kernelgen::Device::list()) {
    std::printf("%u: %s (%s, %s), subgroup %u, shared memory %u bytes\n", info.index, info.name.c_str(),
                info.type.c_str(), info.driver.c_str(), info.subgroup_size, info.max_shared_memory_bytes);
    const kernelgen::DeviceFeatures& has = info.features;
    const std::pair<bool, const char*> features[] = {{has.storage_buffer_16bit, "16-bit storage"},
                                                     {has.storage_buffer_8bit, "8-bit storage"},
                                                     {has.shader_float16, "float16"},
                                                     {has.shader_int8, "int8"},
                                                     {has.shader_int16, "int16"},
                                                     {has.shader_int64, "int64"},
                                                     {has.shader_float64, "float64"}};
    std::string present;
    for (const auto& [on, name] : features)
      if (on) present += (present.empty() ? "" : ", ") + std::string(name);
    std::printf("   features: %s\n", present.empty() ? "none" : present.c_str());
  }
  return 0;
}

// The --set KEY=VALUE pairs. A key is refused: any user can read a command line in the process list.
std::map<std::string, std::string> explicit_settings(const std::vector<std::string>& settings) {
  std::map<std::string, std::string> values;
  for (const std::string& setting : settings) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0)
      throw std::invalid_argument("--set " + setting + ": expected KEY=VALUE");
    const std::string name = setting.substr(0, equals);
    if (kernelgen::llm::is_secret_setting(name))
      throw std::invalid_argument("--set " + name +
                                  "=...: an API key on the command line is visible to every user in the "
                                  "process list. Set " +
                                  name + " in the environment or in the .env file instead");
    values[name] = setting.substr(equals + 1);
  }
  return values;
}

// $KERNELGEN_CACHE_DIR, else the build tree this tool was built in: <build>/kernelgen/candidates.
std::string default_log_dir() {
  if (const char* dir = std::getenv("KERNELGEN_CACHE_DIR"); dir && *dir) return dir;
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "kernelgen-candidates" : (exe.parent_path().parent_path() / "kernelgen" / "candidates").string();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernelgen: build-time generator and validator of Vulkan compute kernels"};
  app.require_subcommand(1);

  std::string spec_path, kernel_path;
  std::filesystem::path reference_module;
  const std::string reference_help =
      "the op's reference module (default: reference.so beside the spec, where kernelgen_add_op builds it)";
  bool json_output = false;
  int timing_runs = 0;
  std::optional<double> timeout_s;

  auto* validate = app.add_subcommand("validate", "compile a GLSL kernel and validate it against the op's reference");
  validate->add_option("--spec", spec_path, "the op's spec.json (in <build>/kernelgen/<op>/)")->required()
      ->check(CLI::ExistingFile);
  validate->add_option("--kernel", kernel_path, "GLSL compute shader (.comp)")->required()->check(CLI::ExistingFile);
  validate->add_option("--reference", reference_module, reference_help);
  validate->add_flag("--json", json_output, "print the verdict as JSON");
  validate->add_option("--time", timing_runs, "time the kernel over N GPU-timestamped runs when it passes");
  validate->add_option("--timeout", timeout_s,
                       "seconds the validation may take before the kernel is rejected as TIMEOUT "
                       "(default: $KERNELGEN_VALIDATION_TIMEOUT_S, else 60)")
      ->check(CLI::PositiveNumber);

  // The child process of every validation (isolated_validation.hpp); not for people.
  auto* worker = app.add_subcommand("validate-worker", "validate one candidate read as JSON from stdin")->group("");
  worker->add_option("--reference", reference_module, "the op's reference module");

  kernelgen::BuildStepOptions step;
  std::vector<std::string> settings;
  std::string log_dir = default_log_dir();
  auto* build_op = app.add_subcommand("build-op", "the per-op build step: check generated/<op>/, search, emit kernel data");
  build_op->add_option("--spec", step.spec_path, "the op's spec.json")->required()->check(CLI::ExistingFile);
  build_op->add_option("--reference", step.reference_module, reference_help);
  build_op->add_option("--out", step.output, "the C++ file to emit")->required();
  build_op->add_flag("--regenerate", step.regenerate, "search again even when generated/<op>/ is current");
  build_op->add_flag("--optimise", step.optimise,
                     "run optimisation rounds from the checked-in kernel; check in a faster one if found");
  build_op->add_flag("--offline", step.offline, "never ask a live model (KERNELGEN_OFFLINE)");
  build_op->add_option("--set", settings,
                       "KEY=VALUE settings that win over the environment and .env (KERNELGEN_MODEL, "
                       "OPENAI_BASE_URL, ANTHROPIC_BASE_URL, ...; never an API key)");
  build_op->add_option("--dotenv", step.dotenv, "a .env file to read settings from");
  build_op->add_option("--log-dir", log_dir, "the candidate log directory");
  build_op->add_option("--cassette-dir", step.cassette_dir, "where <op>.json cassettes are replayed or recorded");

  std::string status_filter, op_filter, record_name;
  auto* list = app.add_subcommand("list", "list the candidate records");
  list->add_option("--status", status_filter, "correct or rejected")->check(CLI::IsMember({"correct", "rejected"}));
  list->add_option("--op", op_filter, "only this op");
  list->add_option("--log-dir", log_dir, "the candidate log directory (default: $KERNELGEN_CACHE_DIR or the build tree's)");
  auto* show = app.add_subcommand("show", "print one candidate record and its lineage");
  show->add_option("record", record_name, "record file name, a unique prefix of one, or a uuid")->required();
  show->add_option("--log-dir", log_dir, "the candidate log directory");
  bool report_json = false;
  auto* report = app.add_subcommand("report", "per op and model: candidates, success rate, rounds, first correct and "
                                              "best time, speed-up, % of peak, tokens, cost");
  report->add_option("--log-dir", log_dir, "the candidate log directory");
  report->add_flag("--json", report_json, "print a JSON array of per-op objects instead of the table");

  auto* devices = app.add_subcommand("devices", "list the Vulkan devices (KERNELGEN_DEVICE picks by index or name)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*worker) return kernelgen::run_validation_worker(reference_module);
    if (*validate) {
      const char* setting = std::getenv("KERNELGEN_VALIDATION_TIMEOUT_S");
      const double limit =
          timeout_s ? *timeout_s : kernelgen::validation_timeout(setting ? std::optional<std::string>(setting) : std::nullopt);
      return validate_command(spec_path, reference_module, kernel_path, json_output, timing_runs, limit);
    }
    if (*build_op) {
      step.explicit_settings = explicit_settings(settings);
      step.log_dir = log_dir;
      return kernelgen::run_build_step(step);
    }
    if (*list) return std::printf("%s", kernelgen::list_records(log_dir, status_filter, op_filter).c_str()), 0;
    if (*show) return std::printf("%s", kernelgen::show_record(log_dir, record_name).c_str()), 0;
    if (*report && report_json) return std::printf("%s\n", kernelgen::report_summary(log_dir).dump(2).c_str()), 0;
    if (*report) return std::printf("%s", kernelgen::report_records(log_dir).c_str()), 0;
    if (*devices) return devices_command();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kernelgen: %s\n", error.what());
    return 2;
  }
  return 2;
}
