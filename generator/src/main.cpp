// The kernelgen build-time tool. Each command is a thin shell around one stage of the library.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernelgen/build_step.hpp"
#include "kernelgen/cases.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/evaluate.hpp"
#include "kernelgen/files.hpp"
#include "kernelgen/reference_types.hpp"

namespace {

int validate_command(const std::string& spec_path, const std::string& kernel_path, bool json_output, int timing_runs) {
  const kernelgen::OpSpec spec = kernelgen::load_op_spec(spec_path);
  const kernelgen::ReferenceFunction reference = kernelgen::find_reference(spec.name);
  if (!reference) {
    std::fprintf(stderr, "kernelgen: op '%s' has no reference linked into this tool; it knows:", spec.name.c_str());
    for (const auto& name : kernelgen::registered_references()) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  const std::string source = kernelgen::read_file(kernel_path);
  kernelgen::Device device(kernelgen::DeviceOptions{.robust_buffer_access = true});
  const uint64_t seed = kernelgen::base_seed_from_environment();
  const kernelgen::Verdict verdict =
      kernelgen::evaluate_source(device, spec, reference, source, {seed, timing_runs});
  if (json_output) {
    std::printf("%s\n", nlohmann::json(verdict).dump(2).c_str());
  } else {
    std::printf("%s: %s", kernel_path.c_str(), kernelgen::describe(verdict).c_str());
  }
  return verdict.passed() ? 0 : 1;
}

int devices_command() {
  for (const auto& info : kernelgen::Device::list())
    std::printf("%u: %s (%s, %s), subgroup %u, shared memory %u bytes\n", info.index, info.name.c_str(),
                info.type.c_str(), info.driver.c_str(), info.subgroup_size, info.max_shared_memory_bytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernelgen: build-time generator and validator of Vulkan compute kernels"};
  app.require_subcommand(1);

  std::string spec_path, kernel_path, output;
  bool json_output = false, regenerate = false;
  int timing_runs = 0;

  auto* validate = app.add_subcommand("validate", "compile a GLSL kernel and validate it against the op's reference");
  validate->add_option("--spec", spec_path, "the op's spec.json (in <build>/kernelgen/<op>/)")->required()
      ->check(CLI::ExistingFile);
  validate->add_option("--kernel", kernel_path, "GLSL compute shader (.comp)")->required()->check(CLI::ExistingFile);
  validate->add_flag("--json", json_output, "print the verdict as JSON");
  validate->add_option("--time", timing_runs, "time the kernel over N GPU-timestamped runs when it passes");

  auto* build_op = app.add_subcommand("build-op", "the per-op build step: check generated/<op>/, emit kernel data");
  build_op->add_option("--spec", spec_path, "the op's spec.json")->required()->check(CLI::ExistingFile);
  build_op->add_option("--out", output, "the C++ file to emit")->required();
  build_op->add_flag("--regenerate", regenerate, "search again even when generated/<op>/ is current");

  auto* devices = app.add_subcommand("devices", "list the Vulkan devices (KERNELGEN_DEVICE picks by index or name)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*validate) return validate_command(spec_path, kernel_path, json_output, timing_runs);
    if (*build_op) return kernelgen::run_build_step({spec_path, output, regenerate});
    if (*devices) return devices_command();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kernelgen: %s\n", error.what());
    return 2;
  }
  return 2;
}
