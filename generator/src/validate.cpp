#include "kernelgen/validate.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "kernelgen/buffer.hpp"
#include "kernelgen/cases.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/error.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/spirv_interface.hpp"

namespace kernelgen {

namespace {

constexpr size_t kGuardWords = 64;
// Two poison patterns, one per run: a quiet NaN with a payload, then a finite value. An element holding the
// poison after both runs was never written.
constexpr uint32_t kPoisonA = 0x7fe0deadu;
const uint32_t kPoisonB = std::bit_cast<uint32_t>(31337.0f);

uint32_t guard_word(size_t i) { return 0xdeadbeefu ^ static_cast<uint32_t>(i * 0x9e3779b9u); }

std::string describe_tensor(const OpSpec& spec, size_t binding) {
  const bool input = binding < spec.inputs.size();
  const TensorSpec& tensor = input ? spec.inputs[binding] : spec.outputs[binding - spec.inputs.size()];
  return "binding " + std::to_string(binding) + " (" + std::string(input ? "input " : "output ") + tensor.name + ")";
}

using Words = std::vector<uint32_t>;

// Seven significant digits, in whatever notation is shortest: 1e-06, not 0.000001.
std::string shortest(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", value);
  return text;
}

// The buffers of one validation: each tensor's data followed by guard words.
class Harness {
 public:
  Harness(Device& device, const OpSpec& spec, const KernelBinary& binary)
      : tensors_(spec.tensors()), kernel_(device, binary.spirv, static_cast<uint32_t>(tensors_.size())),
        sequence_(device, 0) {
    std::vector<const Buffer*> bound;
    for (const auto& tensor : tensors_) buffers_.emplace_back(device, (tensor.elements() + kGuardWords) * 4);
    for (const auto& buffer : buffers_) bound.push_back(&buffer);
    sequence_.dispatch(kernel_, bound, binary.grid);
  }

  // Uploads inputs and poisoned outputs, runs the kernel once and returns every buffer's words.
  std::vector<Words> run(const std::vector<std::vector<float>>& inputs, uint32_t poison) {
    for (size_t t = 0; t < tensors_.size(); ++t) {
      Words words(static_cast<size_t>(tensors_[t].elements()), poison);
      if (t < inputs.size()) std::memcpy(words.data(), inputs[t].data(), inputs[t].size() * 4);
      for (size_t g = 0; g < kGuardWords; ++g) words.push_back(guard_word(g));
      buffers_[t].upload(words.data(), words.size() * 4);
    }
    sequence_.submit();
    std::vector<Words> contents;
    for (size_t t = 0; t < tensors_.size(); ++t) contents.push_back(buffers_[t].download<uint32_t>());
    return contents;
  }

 private:
  std::vector<TensorSpec> tensors_;
  Kernel kernel_;
  std::vector<Buffer> buffers_;
  Sequence sequence_;
};

// Checks that need only one run: the guards and the inputs. Returns a failure or nothing.
std::optional<CaseResult> check_run(const OpSpec& spec, const TestCase& test_case, const std::vector<Words>& contents) {
  for (size_t t = 0; t < contents.size(); ++t) {
    const size_t elements = contents[t].size() - kGuardWords;
    for (size_t g = 0; g < kGuardWords; ++g) {
      if (contents[t][elements + g] != guard_word(g)) {
        CaseResult failure{test_case.name, test_case.seed, Status::OUT_OF_BOUNDS, spec.tensors()[t].name};
        failure.detail = "wrote past the end of " + describe_tensor(spec, t) + ": element " +
                         std::to_string(elements + g) + " of a tensor of " + std::to_string(elements) +
                         " elements was changed; guard every store with an index < " + std::to_string(elements);
        return failure;
      }
    }
  }
  for (size_t t = 0; t < test_case.inputs.size(); ++t) {
    const auto& input = test_case.inputs[t];
    for (size_t i = 0; i < input.size(); ++i) {
      if (contents[t][i] != std::bit_cast<uint32_t>(input[i])) {
        CaseResult failure{test_case.name, test_case.seed, Status::WROTE_INPUT, spec.inputs[t].name};
        failure.detail = "changed " + describe_tensor(spec, t) + " at element " + std::to_string(i) +
                         "; inputs are read-only: declare them `readonly` and write only the outputs";
        return failure;
      }
    }
  }
  return std::nullopt;
}

std::span<const float> as_floats(const Words& words, size_t elements) {
  return {reinterpret_cast<const float*>(words.data()), elements};
}

CaseResult check_case(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case,
                      const std::vector<Words>& first, const std::vector<Words>& second) {
  for (const auto* run : {&first, &second})
    if (auto failure = check_run(spec, test_case, *run)) return *failure;

  const auto expected = run_reference(spec, reference, test_case.inputs);
  CaseResult result{test_case.name, test_case.seed, Status::PASSED};
  for (size_t o = 0; o < spec.outputs.size(); ++o) {
    const size_t t = spec.inputs.size() + o;
    const size_t elements = static_cast<size_t>(spec.outputs[o].elements());
    const Words& a = first[t];
    const Words& b = second[t];
    int64_t unwritten = 0, first_unwritten = -1, differing = 0, first_difference = -1;
    for (size_t i = 0; i < elements; ++i) {
      if (a[i] == kPoisonA && b[i] == kPoisonB) {
        if (unwritten++ == 0) first_unwritten = static_cast<int64_t>(i);
      } else if (a[i] != b[i]) {
        if (differing++ == 0) first_difference = static_cast<int64_t>(i);
      }
    }
    result.tensor = spec.outputs[o].name;
    result.comparison = compare_outputs(as_floats(a, elements), expected[o], spec.atol, spec.rtol);
    // Differences first: a kernel that reads its output before writing it leaves the poison unchanged
    // wherever it adds zero (y += 0 keeps NaN's payload and 31337), which would otherwise read as unwritten.
    if (differing > 0) {
      result.status = Status::NONDETERMINISTIC;
      result.detail = "two runs on the same inputs gave different " + spec.outputs[o].name + " at " +
                      std::to_string(differing) + " elements (first at index " + std::to_string(first_difference) +
                      "); does the kernel read its output before writing it, or race between invocations?";
      return result;
    }
    if (unwritten > 0) {
      result.status = Status::INCORRECT_NUMERICAL;
      result.detail = std::to_string(unwritten) + " of " + std::to_string(elements) + " elements of output " +
                      spec.outputs[o].name + " were never written (first at index " + std::to_string(first_unwritten) +
                      "); the grid or the indexing does not cover the whole output";
      return result;
    }
    if (!result.comparison.passed()) {
      const Comparison& c = result.comparison;
      result.status = Status::INCORRECT_NUMERICAL;
      result.detail = std::to_string(c.mismatches) + " of " + std::to_string(c.elements) + " elements of " +
                      spec.outputs[o].name + " differ from the reference; first at index " +
                      std::to_string(c.first_mismatch) + ": got " + shortest(c.got_at_first) + ", expected " +
                      shortest(c.expected_at_first);
      return result;
    }
  }
  return result;
}

std::string dims(std::array<uint32_t, 3> v) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

}  // namespace

std::vector<std::vector<float>> run_reference(const OpSpec& spec, ReferenceFunction reference,
                                              const std::vector<std::vector<float>>& inputs) {
  std::vector<ConstTensorView> in;
  for (size_t i = 0; i < spec.inputs.size(); ++i) in.push_back({inputs.at(i).data(), spec.inputs[i].shape});
  std::vector<std::vector<float>> outputs;
  std::vector<TensorView> out;
  for (const auto& tensor : spec.outputs) outputs.emplace_back(static_cast<size_t>(tensor.elements()), 0.0f);
  for (size_t o = 0; o < spec.outputs.size(); ++o) out.push_back({outputs[o].data(), spec.outputs[o].shape});
  reference(in, out, Params(spec.params));
  return outputs;
}

std::optional<std::string> interface_mismatch(const OpSpec& spec, const SpirvInterface& interface,
                                              const DeviceInfo& device, Grid grid) {
  if (!interface.has_compute_main) return "there is no compute entry point named main";
  const auto tensors = spec.tensors();
  for (const SpirvBinding& binding : interface.bindings) {
    if (binding.set != 0 || binding.binding >= tensors.size())
      return "declares (set " + std::to_string(binding.set) + ", binding " + std::to_string(binding.binding) +
             "), which is not part of the op's interface: set 0, bindings 0.." + std::to_string(tensors.size() - 1);
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto found = std::find_if(interface.bindings.begin(), interface.bindings.end(),
                              [&](const SpirvBinding& b) { return b.set == 0 && b.binding == i; });
    if (found == interface.bindings.end())
      return describe_tensor(spec, i) + " is not declared; declare layout(set = 0, binding = " + std::to_string(i) +
             ", std430) buffer for it";
    if (std::count_if(interface.bindings.begin(), interface.bindings.end(),
                      [&](const SpirvBinding& b) { return b.set == 0 && b.binding == i; }) > 1)
      return describe_tensor(spec, i) + " is declared more than once";
    if (!found->buffer_block)
      return describe_tensor(spec, i) + " is a " + found->storage_class +
             " resource; the contract wants a std430 storage buffer (a `buffer` block)";
    if (i >= spec.inputs.size() && found->readonly)
      return describe_tensor(spec, i) + " is declared readonly, but it is an output the kernel must write";
  }
  if (interface.uses_push_constants) return "uses push constants; the contract passes only the tensors' buffers";
  const auto& size = interface.local_size;
  if (size[0] == 0 || size[1] == 0 || size[2] == 0)
    return "declares no workgroup size; add layout(local_size_x = ..., local_size_y = ..., local_size_z = ...) in;";
  for (int d = 0; d < 3; ++d) {
    if (size[d] > device.max_workgroup_size[d])
      return "workgroup size " + dims(size) + " exceeds the device's maximum " + dims(device.max_workgroup_size);
  }
  const uint64_t invocations = uint64_t{size[0]} * size[1] * size[2];
  if (invocations > device.max_workgroup_invocations)
    return "workgroup size " + dims(size) + " has " + std::to_string(invocations) +
           " invocations; the device allows at most " + std::to_string(device.max_workgroup_invocations);
  if (device.max_shared_memory_bytes > 0 && interface.workgroup_memory_bytes > device.max_shared_memory_bytes)
    return "its shared variables need at least " + std::to_string(interface.workgroup_memory_bytes) +
           " bytes per workgroup; the device allows " + std::to_string(device.max_shared_memory_bytes) +
           ": use smaller tiles";
  const std::array<uint32_t, 3> grid_size{grid.x, grid.y, grid.z};
  for (int d = 0; d < 3; ++d) {
    if (grid_size[d] == 0 || grid_size[d] > device.max_workgroup_count[d])
      return "dispatch grid " + dims(grid_size) + " is outside 1.." + dims(device.max_workgroup_count) +
             " workgroups per dimension";
  }
  return std::nullopt;
}

Verdict validate_kernel(Device& device, const OpSpec& spec, ReferenceFunction reference, const KernelBinary& kernel,
                        const ValidationOptions& options) {
  Verdict verdict;
  verdict.base_seed = options.base_seed;
  verdict.device = device.info().name;

  if (!spec.inputs.empty()) {
    const auto a = run_reference(spec, reference, make_case(spec, "uniform", options.base_seed).inputs);
    const auto b = run_reference(spec, reference, make_case(spec, "uniform", ~options.base_seed).inputs);
    if (a == b)
      throw std::invalid_argument("op '" + spec.name +
                                  "': the reference gives the same outputs for two different random inputs; check "
                                  "that it reads `inputs` and writes `outputs` (" + spec.reference_path + ")");
  }

  std::string error;
  const auto interface = reflect_spirv(kernel.spirv, &error);
  if (!interface) {
    verdict.status = Status::INTERFACE_MISMATCH;
    verdict.reason = "the binary is not SPIR-V: " + error;
    return verdict;
  }
  if (auto mismatch = interface_mismatch(spec, *interface, device.info(), kernel.grid)) {
    verdict.status = Status::INTERFACE_MISMATCH;
    verdict.reason = *mismatch;
    return verdict;
  }

  try {
    Harness harness(device, spec, kernel);
    for (const TestCase& test_case : make_cases(spec, options.base_seed)) {
      const auto first = harness.run(test_case.inputs, kPoisonA);
      const auto second = harness.run(test_case.inputs, kPoisonB);
      verdict.cases.push_back(check_case(spec, reference, test_case, first, second));
    }
  } catch (const VulkanError& failure) {
    verdict.status = Status::RUNTIME_ERROR;
    verdict.reason = failure.what();
    return verdict;
  } catch (const std::invalid_argument& failure) {
    verdict.status = Status::RUNTIME_ERROR;
    verdict.reason = failure.what();
    return verdict;
  }

  for (const CaseResult& c : verdict.cases) {
    if (c.status != Status::PASSED) {
      verdict.status = c.status;
      verdict.reason = "case " + c.name + ": " + c.detail;
      return verdict;
    }
  }
  if (options.timing_runs > 0) verdict.timing = time_kernel(device, spec, kernel, options.timing_runs);
  return verdict;
}

Timing time_kernel(Device& device, const OpSpec& spec, const KernelBinary& binary, int runs) {
  const auto tensors = spec.tensors();
  Kernel kernel(device, binary.spirv, static_cast<uint32_t>(tensors.size()));
  const TestCase inputs = make_case(spec, "uniform", 1);
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> bound;
  for (size_t t = 0; t < tensors.size(); ++t) {
    buffers.emplace_back(device, static_cast<size_t>(tensors[t].bytes()));
    if (t < inputs.inputs.size()) buffers.back().upload(std::span<const float>(inputs.inputs[t]));
  }
  for (const auto& buffer : buffers) bound.push_back(&buffer);

  Sequence sequence(device, static_cast<uint32_t>(runs) + 1);
  sequence.timestamp();
  for (int r = 0; r < runs; ++r) sequence.dispatch(kernel, bound, binary.grid).timestamp();
  sequence.submit();  // warm-up: caches, clocks, lazy pipeline work
  sequence.submit();
  std::vector<double> samples;
  for (int r = 0; r < runs; ++r) samples.push_back(sequence.elapsed_ns(r, r + 1));
  std::sort(samples.begin(), samples.end());

  Timing timing;
  timing.device = device.info().name;
  timing.runs = runs;
  timing.median_ns = samples[samples.size() / 2];
  timing.min_ns = samples.front();
  timing.gbytes_per_second = static_cast<double>(spec.bytes_moved()) / timing.median_ns;
  timing.gflops = spec.flops / timing.median_ns;
  return timing;
}

}  // namespace kernelgen
