// The checks of an op's generated test: see kernelgen/harness/op_tests.hpp.
#include <kernelgen/harness/op_tests.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <kernelgen/capabilities.hpp>
#include <kernelgen/compile/compile.hpp>
#include <kernelgen/store/files.hpp>
#include <kernelgen/validation/case_buffers.hpp>
#include <kernelgen/validation/cases.hpp>
#include <kernelgen/validation/protocol.hpp>
#include <kernelgen/validation/sizes.hpp>
#include <kernelgen/validation/timed_output.hpp>
#include <kernelgen/validation/validate.hpp>
#include <kernelgen/validation/validation_devices.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kernelgen::harness {

namespace {

OpSpec spec_of(const OpUnderTest& op) { return parse_op_spec(nlohmann::json::parse(op.spec_json)); }

// The run's base seed, printed once for KERNELGEN_SEED.
uint64_t seed_for_this_run(const OpUnderTest& op) {
  static const uint64_t seed = [&] {
    const uint64_t s = base_seed_from_environment();
    std::printf("kernelgen: op %s, base seed %llu (replay with KERNELGEN_SEED=%llu)\n", op.name,
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

Verdict validate(Device& device, const OpUnderTest& op, const OpSpec& spec, std::span<const uint32_t> spirv,
                 const char* dispatch) {
  const KernelBinary kernel{{spirv.begin(), spirv.end()}, GridExpression::parse(dispatch, spec.dim_names())};
  return validate_kernel(device, spec, op.reference, kernel,
                         {seed_for_this_run(op), 0, stress_runs_from_environment()});
}

// The protocol of these validation devices when it is full, or reduced and accepted by KERNELGEN_REDUCED_VALIDATION=1
// (said on stdout); otherwise a failure naming what is missing and what to install, and nullopt: nothing is
// validated.
std::optional<ValidationProtocol> allowed_protocol(const OpUnderTest& op, const std::vector<DeviceInfo>& devices) {
  const ValidationProtocol protocol = validation_protocol_here(devices);
  const char* accept = std::getenv("KERNELGEN_REDUCED_VALIDATION");
  if (auto refused = reduced_validation_refused(
          protocol, accepts_reduced_validation(accept ? std::optional<std::string>(accept) : std::nullopt))) {
    ADD_FAILURE() << "op " << op.name << ": " << *refused;
    return std::nullopt;
  }
  if (!protocol.full()) std::printf("kernelgen: op %s: %s\n", op.name, reduced_validation_accepted(protocol).c_str());
  return protocol;
}

// `source` compiles, to `spirv`.
void expect_compiles_to(const std::string& source, std::span<const uint32_t> spirv, const std::string& what) {
  const Compilation compiled = compile_glsl(read_file(source));
  ASSERT_TRUE(compiled.ok) << source << " does not compile:\n" << compiled.log;
  EXPECT_TRUE(std::ranges::equal(compiled.spirv, spirv))
      << source << " compiles to other SPIR-V than " << what << ": it changed since the build. Build again, and "
      << "the build step checks the checked-in kernel (kernel.spv must be kernel.comp's SPIR-V)";
}

}  // namespace

void checked_in_kernel_passes_validation(const OpUnderTest& op) {
  const OpSpec spec = spec_of(op);
  const std::vector<DeviceInfo> devices = validation_devices_from_environment();
  const auto protocol = allowed_protocol(op, devices);
  if (!protocol) return;
  int validated = 0;
  for (const DeviceInfo& on : devices) {
    DeviceOptions options = validation_device_options();
    options.selector = std::to_string(on.index);
    std::optional<Device> opened;
    try {
      opened.emplace(options);
    } catch (const std::exception& error) {  // never a quiet validation on fewer devices
      ADD_FAILURE() << "validation device " << on.index << " (" << on.name << ") cannot be created: " << error.what();
      continue;
    }
    Device& device = *opened;
    if (auto unsupported = unsupported_on(spec, device.info(), op.spirv)) {
      std::printf("kernelgen: op %s: not validated on %s: %s\n", op.name, on.name.c_str(), unsupported->c_str());
      continue;
    }
    Verdict verdict = validate(device, op, spec, op.spirv, op.dispatch);
    verdict.reduced = protocol->missing;
    ++validated;
    if (!verdict.passed()) {  // validation stopped at the failing size
      ADD_FAILURE() << "on " << on.name << ": " << describe(verdict);
      continue;
    }
    // Every case at every size validated, and more than one size for an op with dims.
    const std::size_t cases = case_names().size();
    EXPECT_EQ(verdict.cases.size() % cases, 0u);
    EXPECT_EQ(verdict.cases.size() > cases, !spec.dims.empty());
  }
  if (validated == 0) GTEST_SKIP() << "no validation device here can run op " << op.name;
}

void runs_what_the_checked_in_source_compiles_to(const OpUnderTest& op) {
  expect_compiles_to(op.generated_dir + "/kernel.comp", op.spirv,
                     std::string("the kernel built into kernelgen::") + op.name);
}

void wrapper_call_matches_reference(const OpUnderTest& op) {
  const OpSpec spec = spec_of(op);
  Device device;
  if (auto unsupported = unsupported_on(spec, device.info(), op.spirv)) GTEST_SKIP() << *unsupported;
  DimValues smallest, largest;
  for (const DimSpec& dim : spec.dims) {
    smallest.push_back(*std::min_element(dim.sizes.begin(), dim.sizes.end()));
    largest.push_back(*std::max_element(dim.sizes.begin(), dim.sizes.end()));
  }
  const std::unique_ptr<Wrapper> wrapper = op.open(device);
  for (const DimValues& dims : {smallest, largest}) {
    const TestCase inputs = make_case(spec, "normal", seed_for_this_run(op), dims);
    const auto expected = run_reference(spec, op.reference, inputs);
    const auto magnitudes = reference_magnitudes(spec, op.reference, inputs);
    std::vector<Buffer> buffers = case_buffers(device, spec, inputs);
    for (int repeat = 0; repeat < 2; ++repeat) {
      wrapper->call(dims, buffers);
      const std::vector<HostTensor> got = download_outputs(spec, dims, buffers);
      for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
        const Tolerance tolerance = spec.tolerance_of(spec.outputs[o]);
        const auto comparison = compare_outputs(got[o], expected[o], tolerance,
                                                magnitudes.empty() ? nullptr : &magnitudes[o]);
        EXPECT_TRUE(comparison.passed()) << "output " << spec.outputs[o].name << " at " << dims_text(spec, dims)
                                         << ", call " << repeat + 1 << ": " << comparison.mismatches
                                         << " mismatches, first at " << comparison.first_mismatch;
      }
    }
  }
}

void wrapper_call_at_the_timed_size_matches_reference(const OpUnderTest& op) {
  const OpSpec spec = spec_of(op);
  Device device;
  if (auto unsupported = unsupported_on(spec, device.info(), op.spirv)) GTEST_SKIP() << *unsupported;
  const DimValues dims = spec.bench_dims(is_cpu_device(device.info()));
  const std::span<const char* const> names = timed_size_case_names();
  const TimedOutputCheck check(spec, op.reference, dims, seed_for_this_run(op), largest_dims(spec), names.size());
  const std::unique_ptr<Wrapper> wrapper = op.open(device);
  for (const char* name : names) {
    const TestCase inputs = make_case(spec, name, seed_for_this_run(op), dims);
    std::vector<Buffer> buffers = case_buffers(device, spec, inputs);
    wrapper->call(dims, buffers);
    if (const auto wrong = check({inputs, download_outputs(spec, dims, buffers)})) {
      ADD_FAILURE() << wrong->detail;
      return;  // the first case it fails says enough
    }
  }
}

void variants_run_what_their_checked_in_sources_compile_to(const OpUnderTest& op) {
  if (op.variants.empty()) GTEST_SKIP() << "op " << op.name << " declares no VARIANTS";
  for (const Variant& variant : op.variants)
    expect_compiles_to(op.generated_dir + "/variants/" + variant.name + "/kernel.comp", variant.spirv,
                       std::string("the variant built into kernelgen::") + op.name);
}

void the_wrapper_runs_the_first_variant_this_device_runs(const OpUnderTest& op) {
  if (op.variants.empty()) GTEST_SKIP() << "op " << op.name << " declares no VARIANTS";
  if (std::getenv("KERNELGEN_VARIANT")) GTEST_SKIP() << "KERNELGEN_VARIANT picks the kernel";
  Device device(validation_device_options());
  std::string expected;
  for (const Variant& variant : op.variants)
    if (expected.empty() && runs_on(device.info(), variant.spirv)) expected = variant.name;
  EXPECT_EQ(op.open(device)->variant(), expected)
      << "on " << device.info().name << ", which runs " << (expected.empty() ? "none" : expected) << " first";
  if (expected.empty())
    std::printf("kernelgen: op %s: %s runs none of its variants, so the wrapper runs the op's own kernel\n",
                op.name, device.info().name.c_str());
}

void every_variant_this_device_can_run_passes_validation(const OpUnderTest& op) {
  const OpSpec spec = spec_of(op);
  Device device(validation_device_options());
  std::vector<const Variant*> runnable;
  for (const Variant& variant : op.variants) {
    if (runs_on(device.info(), variant.spirv))
      runnable.push_back(&variant);
    else
      std::printf("kernelgen: op %s: variant %s not run: %s cannot run it\n", op.name, variant.name,
                  device.info().name.c_str());
  }
  if (runnable.empty()) GTEST_SKIP() << "no variant of op " << op.name << " runs on " << device.info().name;
  // Refused as the build step refuses it: by what this machine offers, not by what the variant can run on.
  if (!allowed_protocol(op, validation_devices_from_environment())) return;
  for (const Variant* variant : runnable) {
    Verdict verdict = validate(device, op, spec, variant->spirv, variant->dispatch);
    verdict.reduced = validation_protocol_here({device.info()}).missing;  // validated here on this device alone
    EXPECT_TRUE(verdict.passed()) << "variant " << variant->name << ": " << describe(verdict);
  }
}

}  // namespace kernelgen::harness
