// The kernelgen build-time tool. Each command is a thin shell around one stage of the library.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernelgen/compile/compile.hpp"
#include "kernelgen/contract/dims_override.hpp"
#include "kernelgen/contract/reference_module.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/devices/devices_command.hpp"
#include "kernelgen/devices/resource_spec.hpp"
#include "kernelgen/emit/build_step.hpp"
#include "kernelgen/llm/settings.hpp"
#include "kernelgen/reference_types.hpp"
#include "kernelgen/report/log_commands.hpp"
#include "kernelgen/report/report_html.hpp"
#include "kernelgen/store/candidate_log_dir.hpp"
#include "kernelgen/store/files.hpp"
#include "kernelgen/validation/cases.hpp"
#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/validation/protocol.hpp"
#include "kernelgen/validation/validation_devices.hpp"

namespace {

// The op's spec, with the sizes --dims gives in place of its DIMS and those --timed-dims gives in place of its
// BENCH_DIMS and CPU_BENCH_DIMS, where they give any; an error names the file, and the options where the new sizes
// are what the spec's checks refuse.
kernelgen::OpSpec load_spec(const std::string& spec_path, const std::vector<std::string>& dims,
                            const std::vector<std::string>& timed_dims) {
  if (dims.empty() && timed_dims.empty()) return kernelgen::load_op_spec(spec_path);
  const nlohmann::json spec =
      kernelgen::with_timed_dims(kernelgen::with_dims(kernelgen::read_op_spec_json(spec_path), dims), timed_dims);
  try {
    return kernelgen::parse_op_spec(spec);
  } catch (const std::invalid_argument& error) {
    const std::string given = dims.empty()         ? "--timed-dims"
                              : timed_dims.empty() ? "--dims"
                                                   : "--dims and --timed-dims";
    throw std::invalid_argument(spec_path + " with " + given + ": " + error.what());
  }
}

int validate_command(const std::string& spec_path, std::filesystem::path reference_module,
                     const std::string& kernel_path, bool json_output, int timing_runs, double timeout_s,
                     const std::vector<std::string>& dims, const std::vector<std::string>& timed_dims,
                     bool reduced, bool timed_size) {
  const kernelgen::OpSpec spec = load_spec(spec_path, dims, timed_dims);
  if (reference_module.empty()) reference_module = kernelgen::default_reference_module(spec_path);
  kernelgen::load_reference(reference_module, spec.name);  // fails here, rather than in every worker
  const std::string source = kernelgen::read_file(kernel_path);
  const uint64_t seed = kernelgen::base_seed_from_environment();
  // A variant on cooperative matrices is validated on the devices that can run it, as the build step does; where
  // none can, on all of them, whose verdict says what the kernel needs.
  const std::vector<kernelgen::DeviceInfo> devices = kernelgen::validation_devices_from_environment();
  // What this machine offers, as the build step judges it: the full protocol, or a reduced one asked for.
  const kernelgen::ValidationProtocol protocol = kernelgen::validation_protocol_here(devices);
  const char* setting = std::getenv("KERNELGEN_REDUCED_VALIDATION");
  const bool accepted_by_setting =
      kernelgen::accepts_reduced_validation(setting ? std::optional<std::string>(setting) : std::nullopt);
  if (auto refused = kernelgen::reduced_validation_refused(protocol, reduced || accepted_by_setting)) {
    std::fprintf(stderr, "kernelgen: %s: %s\n", kernel_path.c_str(), refused->c_str());
    return 2;
  }
  if (!protocol.full()) {
    const std::string by = reduced ? "--reduced" : "KERNELGEN_REDUCED_VALIDATION=1";
    std::fprintf(stderr, "kernelgen: %s: %s\n", kernel_path.c_str(),
                 kernelgen::reduced_validation_accepted(protocol, by).c_str());
  }
  const kernelgen::DevicesForKernel split = kernelgen::devices_that_run(devices, source);
  if (!split.able.empty())
    for (const auto& [device, lacking] : split.unable)
      std::fprintf(stderr, "kernelgen: not validating on %s, which cannot run this kernel%s\n", device.name.c_str(),
                   lacking.empty() ? "" : (" (it declares " + lacking + ")").c_str());
  const kernelgen::Verdict verdict =
      kernelgen::evaluate_isolated({.tool = {}, .timeout_s = timeout_s,
                                    .devices = split.able.empty() ? devices : split.able,
                                    .reference_module = reference_module},
                                   spec, source,
                                   {.base_seed = seed,
                                    .timing_runs = timing_runs,
                                    .stress_runs = kernelgen::stress_runs_from_environment(),
                                    .check_timed_size = timed_size});
  if (json_output) {
    std::printf("%s\n", nlohmann::json(verdict).dump(2).c_str());
  } else {
    std::printf("%s: %s", kernel_path.c_str(), kernelgen::describe(verdict).c_str());
  }
  return verdict.passed() ? 0 : 1;
}

int print_json(const nlohmann::json& document) {
  return std::printf("%s\n", document.dump(2).c_str()), 0;
}

int print_text(const std::string& text) {
  return std::printf("%s", text.c_str()), 0;
}

bool is_command(const CLI::App& app, const std::string& name) {
  return !app.get_subcommands([&](const CLI::App* command) { return command->check_name(name); }).empty();
}

// CLI11 would only say that a command is required.
int unknown_command(const CLI::App& app, const std::string& name) {
  std::string known;
  for (const CLI::App* command :
       app.get_subcommands([](const CLI::App* command) { return !command->get_group().empty(); }))
    known += (known.empty() ? "" : ", ") + command->get_name();
  std::fprintf(stderr, "kernelgen: unknown command '%s'; the commands are %s (kernelgen --help)\n",
               name.c_str(), known.c_str());
  return 2;
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

// The candidate log when --log-dir names none: $KERNELGEN_CACHE_DIR, else the log of the project the current
// directory lies in, else that of the build tree this tool was built in (<build>/bin/kernelgen).
std::string default_log_dir() {
  if (const char* dir = std::getenv("KERNELGEN_CACHE_DIR"); dir && *dir) return dir;
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (const auto project = error ? std::nullopt : kernelgen::project_log_dir(here)) return project->string();
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "kernelgen-candidates" : (exe.parent_path().parent_path() / "kernelgen" / "candidates").string();
}

// "kernelgen 0.1.0 (glslang 15.1.0, SPIRV-Tools v2025.1)".
std::string toolchain_text() {
  return std::string("kernelgen ") + KERNELGEN_VERSION + " (" + kernelgen::compiler_version() + ", " +
         kernelgen::validator_version() + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernelgen: build-time generator and validator of Vulkan compute kernels"};
  app.require_subcommand(1);
  // The shader toolchain too: which glslang compiled a kernel.spv decides whether it is current
  // (docs/validation.md, "Source and binary agree").
  app.set_version_flag("--version", toolchain_text());
  app.footer(
      "Run `kernelgen <command> --help` for a command's options and examples. Exit status: 0 success, 1 a "
      "rejected kernel (validate) or a failed build step (build-op), 2 bad arguments or input.");

  std::string spec_path, kernel_path;
  std::filesystem::path reference_module;
  const std::string reference_help =
      "the op's reference module (default: reference.so beside the spec, where kernelgen_add_op builds it)";
  bool json_output = false;
  bool reduced = false;
  int timing_runs = 0;
  std::optional<double> timeout_s;
  std::vector<std::string> dims_settings;
  std::vector<std::string> timed_dims_settings;

  auto* validate = app.add_subcommand("validate", "compile a GLSL kernel and validate it against the op's reference");
  validate->add_option("--spec", spec_path, "the op's spec.json (in <build>/kernelgen/<op>/)")->required()
      ->check(CLI::ExistingFile);
  validate->add_option("--kernel", kernel_path, "GLSL compute shader (.comp)")->required()->check(CLI::ExistingFile);
  validate->add_option("--reference", reference_module, reference_help);
  validate->add_flag("--json", json_output, "print the verdict as one JSON object");
  validate->add_flag("--reduced", reduced,
                     "validate even without a CPU Vulkan device (lavapipe) or the Khronos validation layer, as "
                     "KERNELGEN_REDUCED_VALIDATION=1 does; the verdict names what was missing");
  validate->add_option("--time", timing_runs, "time the kernel over N GPU-timestamped runs when it passes");
  bool no_timed_size = false;
  validate->add_flag("--no-timed-size", no_timed_size,
                     "for a quick look: skip the runs at the size the op is timed at (BENCH_DIMS, CPU_BENCH_DIMS on a "
                     "CPU device), which the search and a validation without it check on six input distributions")
      ->excludes("--time");
  validate->add_option("--dims", dims_settings,
                       "validate at these sizes instead of the op's DIMS: NAME=size[,size...] per dim, e.g. "
                       "--dims k=4096 (dims not named keep theirs; size 1, a ragged size and the sizes drawn "
                       "around them are added as to DIMS)");
  validate->add_option("--timed-dims", timed_dims_settings,
                       "time and check the timed output at these sizes instead of BENCH_DIMS (and CPU_BENCH_DIMS): "
                       "NAME=size per dim, e.g. --timed-dims heads=4, for a sweep whose kernels would each take "
                       "minutes of CPU reference at the op's own timed size (dims not named keep theirs)")
      ->excludes("--no-timed-size");
  validate->add_option("--timeout", timeout_s,
                       "seconds the validation may take before the kernel is rejected as TIMEOUT "
                       "(default: $KERNELGEN_VALIDATION_TIMEOUT_S, else 60)")
      ->check(CLI::PositiveNumber);
  validate->footer(R"(Examples:
  kernelgen validate --spec build/kernelgen/relu/spec.json --kernel my_relu.comp
  kernelgen validate --spec build/kernelgen/relu/spec.json --kernel my_relu.comp --time 31 --json
  kernelgen validate --spec build/kernelgen/relu/spec.json --kernel my_relu.comp --no-timed-size   (quicker)
  kernelgen validate --spec build/kernelgen/matmul/spec.json --kernel my_matmul.comp --dims m=130 k=4096 n=130
  kernelgen validate --spec build/kernelgen/attention_f16/spec.json --kernel my_attention.comp --time 31 --timed-dims heads=4
  KERNELGEN_SEED=0x1234 kernelgen validate --spec build/kernelgen/relu/spec.json --kernel my_relu.comp
Exit status: 0 passed, 1 rejected, 2 could not validate (no reference for the op, unreadable file, bad
arguments, no CPU Vulkan device or Khronos layer without --reduced).)");

  // The child process of every validation (isolated_validation.hpp); not for people.
  auto* worker = app.add_subcommand("validate-worker", "validate one candidate read as JSON from stdin")->group("");
  worker->add_option("--reference", reference_module, "the op's reference module");

  kernelgen::BuildStepOptions step;
  std::vector<std::string> settings;
  std::string log_dir;  // empty: not given, default_log_dir()
  const std::string log_dir_help =
      "the candidate log directory (default: $KERNELGEN_CACHE_DIR, else the log of the project the current "
      "directory is in: of the first build tree of kernelgen, or directory holding one as build/, from here "
      "upwards; else kernelgen/candidates in the build tree of this tool)";
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
  build_op->add_option("--log-dir", log_dir, log_dir_help);
  build_op->add_option("--cassette-dir", step.cassette_dir, "where <op>.json cassettes are replayed or recorded");
  build_op
      ->add_option(
          "--concurrent-searches", step.concurrent_searches,
          "searches running at once on this machine, this one included (kernelgen_regenerate runs "
          "KERNELGEN_PARALLEL_SEARCHES): without KERNELGEN_VALIDATION_TIMEOUT_S a validation may take "
          "this many times the default 60 s")
      ->check(CLI::Range(1, 256));
  build_op->footer(R"(kernelgen_add_op runs this step for every op; run it by hand to see one op's search.
Examples:
  kernelgen build-op --spec build/kernelgen/relu/spec.json --out /tmp/relu_kernel_data.cpp
  kernelgen build-op --spec build/kernelgen/relu/spec.json --out /tmp/relu_kernel_data.cpp --regenerate \
      --set KERNELGEN_MODEL=replay --cassette-dir tests/cassettes
  kernelgen build-op --spec build/kernelgen/add/spec.json --out /tmp/add_kernel_data.cpp --optimise \
      --set KERNELGEN_MODEL=openai/gpt-4o)");

  std::string status_filter, op_filter, record_name;
  auto* list = app.add_subcommand("list", "list the candidate records");
  list->add_option("--status", status_filter, "correct or rejected")->check(CLI::IsMember({"correct", "rejected"}));
  list->add_option("--op", op_filter, "only this op");
  list->add_option("--log-dir", log_dir, log_dir_help);
  list->add_flag("--json", json_output, "print a JSON array, one object per record");
  list->footer(R"(Examples:
  kernelgen list
  kernelgen list --status rejected --op softmax
  kernelgen list --json --log-dir build/kernelgen/candidates)");

  auto* show = app.add_subcommand("show", "print one candidate record and its lineage");
  show->add_option("record", record_name, "record file name, a unique prefix of one, or a uuid")->required();
  show->add_option("--log-dir", log_dir, log_dir_help);
  show->add_flag("--json", json_output, "print {\"record\": ..., \"lineage\": [...]} as one JSON object");
  show->footer(R"(Examples:
  kernelgen show c_matmul_imxk_kxn_omxn_h1a2b3c4d_5e6f7a8b   (a name that `kernelgen list` prints)
  kernelgen show c_matmul_imxk_kxn_omxn_h1a2b3c4d_5e            (a prefix that only that name has)
  kernelgen show 3f2b9c1e-8d4a-4c6b-9e1f-2a7d5b8c0e13 --json)");

  std::string html_file;
  auto* report = app.add_subcommand("report", "per op and model: candidates, success rate, rounds, first correct and "
                                              "best time, speed-up, % of peak, tokens, cost");
  report->add_option("--log-dir", log_dir, log_dir_help);
  auto* report_json =
      report->add_flag("--json", json_output, "print a JSON array of per-op objects instead of the table");
  report
      ->add_option(
          "--html", html_file,
          "write a self-contained HTML page instead: a roofline chart per device and the per-op table")
      ->excludes(report_json);
  report->footer(R"(Examples:
  kernelgen report
  kernelgen report --json --log-dir build/kernelgen/candidates
  kernelgen report --html report.html      (then open report.html in a browser; it fetches nothing))");

  auto* devices =
      app.add_subcommand("devices", "list the Vulkan devices, their capabilities and measured peaks");
  devices->add_option("--log-dir", log_dir,
                      log_dir_help + "; its device_peaks.json holds the measured peaks");
  devices->add_flag("--json", json_output, "print a JSON array, one object per device");
  std::string resource_spec_path;
  devices->add_option("--resource-spec", resource_spec_path,
                      "write the file of ctest --resource-spec-file instead: a gpu slot per device (README: GPUs in ctest)");
  devices->footer(R"(KERNELGEN_DEVICE picks one of them for kernelgen, by index or by a part of its name.
Examples:
  kernelgen devices
  kernelgen devices --json --log-dir build/kernelgen/candidates
  VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json kernelgen devices   (lavapipe only)
  kernelgen devices --resource-spec build/gpus.json   (then ctest --resource-spec-file build/gpus.json -j))");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1])) return unknown_command(app, argv[1]);
    // --help prints and succeeds; every other parse error is a bad argument, exit status 2 as documented.
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    const bool reads_log = *build_op || *list || *show || *report || (*devices && resource_spec_path.empty());
    if (reads_log && log_dir.empty()) {
      log_dir = default_log_dir();
      std::fprintf(stderr, "kernelgen: candidate log %s\n", log_dir.c_str());
    }
    if (*worker) return kernelgen::run_validation_worker(reference_module);
    if (*validate) {
      const char* setting = std::getenv("KERNELGEN_VALIDATION_TIMEOUT_S");
      const double limit =
          timeout_s ? *timeout_s : kernelgen::validation_timeout(setting ? std::optional<std::string>(setting) : std::nullopt);
      return validate_command(spec_path, reference_module, kernel_path, json_output, timing_runs, limit,
                              dims_settings, timed_dims_settings, reduced, !no_timed_size);
    }
    if (*build_op) {
      step.explicit_settings = explicit_settings(settings);
      step.log_dir = log_dir;
      return kernelgen::run_build_step(step);
    }
    if (*list)
      return json_output ? print_json(kernelgen::list_summary(log_dir, status_filter, op_filter))
                         : print_text(kernelgen::list_records(log_dir, status_filter, op_filter));
    if (*show)
      return json_output ? print_json(kernelgen::show_summary(log_dir, record_name))
                         : print_text(kernelgen::show_record(log_dir, record_name));
    if (*report && !html_file.empty()) {
      kernelgen::write_file_atomic(html_file, kernelgen::report_html(log_dir));
      return std::fprintf(stderr, "kernelgen: wrote %s\n", html_file.c_str()), 0;
    }
    if (*report)
      return json_output ? print_json(kernelgen::report_summary(log_dir))
                         : print_text(kernelgen::report_records(log_dir));
    if (*devices && !resource_spec_path.empty())
      return print_text(kernelgen::write_resource_spec(resource_spec_path));
    if (*devices) {
      const std::filesystem::path peaks = std::filesystem::path(log_dir) / "device_peaks.json";
      const nlohmann::json summary = kernelgen::devices_summary(kernelgen::Device::list(), peaks);
      return json_output ? print_json(summary)
                         : print_text(toolchain_text() + "\n" + kernelgen::devices_text(summary, peaks));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kernelgen: %s\n", error.what());
    return 2;
  }
  return 2;
}
