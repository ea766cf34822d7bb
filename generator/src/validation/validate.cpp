#include "kernelgen/validation/validate.hpp"


#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

#include <vulkan/vulkan.h>

#include "kernelgen/buffer.hpp"
#include "kernelgen/capabilities.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/error.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/validation/case_buffers.hpp"
#include "kernelgen/validation/sizes.hpp"
#include "kernelgen/validation/timed_output.hpp"
#include "kernelgen/timing.hpp"

namespace kernelgen {

namespace {

constexpr size_t kGuardBytes = 256;

// The guard bytes after tensor t in run `run`: a pattern of its own per tensor and per run, so that a kernel
// that copies (or maps) an input's guards over an output's, one element past the end, still changes them.
uint8_t guard_byte(size_t t, int run, size_t i) {
  return static_cast<uint8_t>(0xef ^ (i * 0x9d) ^ (t * 0x35 + 0x11) ^ (run * 0xa6));
}

using Bytes = std::vector<uint8_t>;

std::string describe_tensor(const OpSpec& spec, size_t binding) {
  return "binding " + std::to_string(binding) + " (" + spec.binding_role(binding) + " " +
         spec.tensors().at(binding).name + ")";
}

std::string at_dims(const OpSpec& spec, const DimValues& dims) {
  return dims.empty() ? "" : " at " + dims_text(spec, dims);
}

size_t padded(size_t bytes) { return (bytes + 3) / 4 * 4; }

// A run's contents: each tensor's bytes, how far past its end the first changed guard byte lies, and what
// GPU-assisted validation reported of the kernel's accesses.
struct RunContents {
  std::vector<Bytes> tensors;
  std::vector<std::optional<size_t>> damage;  // per tensor
  std::vector<std::string> faults;
};

// The buffers of one size. Under GPU-assisted validation each tensor has a buffer of exactly its size, so that
// every access outside it, before, just past or far past, read or write, is skipped and reported, and the
// kernel cannot tell it is being validated (`y.length()` is the tensor's length). Without the layer each
// tensor is followed by guard bytes, bound with it under robust access: a store just past the end changes a
// guard; one before the start or beyond the guards is discarded unseen.
class Harness {
 public:
  Harness(Device& device, Kernel& kernel, const OpSpec& spec, const DimValues& dims, Grid grid,
          int test_fault)
      : device_(&device),
        tensors_(spec.tensors()),
        call_tensors_(spec.call_tensor_count()),
        sequence_(device, 0),
        test_fault_(test_fault) {
    const size_t guards = device.gpu_assisted_validation() ? 0 : kGuardBytes;
    std::vector<const Buffer*> bound;
    for (const auto& tensor : tensors_) {
      sizes_.push_back(static_cast<size_t>(tensor.bytes(dims)));
      buffers_.emplace_back(device, guards == 0 ? sizes_.back() : padded(sizes_.back()) + guards);
    }
    for (const auto& buffer : buffers_) bound.push_back(&buffer);
    sequence_.dispatch(kernel, bound, grid, push_constants(dims));
  }

  // Uploads inputs, poisoned outputs and zeroed scratch (and fresh guards), runs the kernel once and reads
  // everything back.
  RunContents run(const std::vector<HostTensor>& inputs, int poison_run) {
    device_->take_kernel_faults();  // whatever came before is not this run's
    for (size_t t = 0; t < tensors_.size(); ++t) {
      // The tensor's bytes (an input's, poison or zeroed scratch), then its guards: one upload each.
      const Bytes& bytes = t < inputs.size() ? inputs[t].bytes : initial_contents(t, poison_run);
      buffers_[t].upload(bytes.data(), bytes.size());
      const Bytes& guards = guard_bytes(t, poison_run);
      if (!guards.empty()) buffers_[t].upload(guards.data(), guards.size(), bytes.size());
    }
    if (test_fault_ < 0) throw VulkanError(test_fault_, "waiting for the kernel's dispatch on " + device_->info().name);
    sequence_.run();
    RunContents contents;
    contents.faults = device_->take_kernel_faults();
    for (size_t t = 0; t < tensors_.size(); ++t) {
      Bytes all = buffers_[t].download<uint8_t>();
      std::optional<size_t> damage;
      for (size_t g = 0; sizes_[t] + g < all.size() && !damage; ++g)
        if (all[sizes_[t] + g] != guard_byte(t, poison_run, g)) damage = g;
      all.resize(sizes_[t]);
      contents.tensors.push_back(std::move(all));
      contents.damage.push_back(damage);
    }
    return contents;
  }

  size_t tensor_bytes(size_t t) const { return sizes_[t]; }

 private:
  // An output's poison of run `poison_run` over its whole size, or a scratch tensor's zeros: the same for
  // every case of this size, so made once.
  const Bytes& initial_contents(size_t t, int poison_run) {
    Bytes& bytes = initial_[{t, poison_run}];
    if (bytes.size() == sizes_[t]) return bytes;
    bytes =
        t < call_tensors_ ? poisoned_bytes(tensors_[t].dtype, poison_run, sizes_[t]) : Bytes(sizes_[t], 0);
    return bytes;
  }

  // The guard bytes between the end of tensor t and the end of its buffer, of run `poison_run`.
  const Bytes& guard_bytes(size_t t, int poison_run) {
    Bytes& guards = guards_[{t, poison_run}];
    const size_t count = buffers_[t].size() - sizes_[t];
    if (guards.size() == count) return guards;
    guards.resize(count);
    for (size_t g = 0; g < count; ++g) guards[g] = guard_byte(t, poison_run, g);
    return guards;
  }

  Device* device_;
  std::vector<TensorSpec> tensors_;
  size_t call_tensors_;  // the inputs and outputs; the scratch after them
  std::vector<size_t> sizes_;
  std::vector<Buffer> buffers_;
  Sequence sequence_;
  int test_fault_;
  std::map<std::pair<size_t, int>, Bytes> initial_, guards_;
};

CaseResult failure(const TestCase& test_case, const OpSpec& spec, Status status, const std::string& tensor) {
  CaseResult result{test_case.name, test_case.seed, status, tensor};
  result.dims = dims_text(spec, test_case.dims);
  return result;
}

// A number that follows `label` in a layer message, or nothing.
std::optional<uint64_t> number_after(const std::string& message, const std::string& label) {
  const size_t at = message.find(label);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = message.c_str() + at + label.size();
  char* end = nullptr;
  const unsigned long long value = std::strtoull(begin, &end, 10);
  return end == begin ? std::nullopt : std::optional<uint64_t>(value);
}

// An out-of-bounds access GPU-assisted validation reported, its tensor found from the instruction it names.
// The access a layer message names by its instruction, or nothing where it names none the module has.
std::optional<SpirvAccess> reported_access(std::span<const uint32_t> spirv, const std::string& fault) {
  const auto instruction = number_after(fault, "Shader Instruction Index = ");
  return instruction ? access_at(spirv, *instruction) : std::nullopt;
}

CaseResult fault_failure(const OpSpec& spec, const std::optional<SpirvAccess>& access, const TestCase& test_case,
                         const std::string& fault) {
  const auto tensors = spec.tensors();
  if (!access || access->set != 0 || access->binding >= tensors.size()) {
    CaseResult result = failure(test_case, spec, Status::OUT_OF_BOUNDS, "");
    result.detail = "accessed memory outside its tensors" + at_dims(spec, test_case.dims) + "; guard every index (" +
                    fault.substr(0, 300) + ")";
    return result;
  }
  const TensorSpec& tensor = tensors[access->binding];
  CaseResult result = failure(test_case, spec, Status::OUT_OF_BOUNDS, tensor.name);
  const size_t element_bytes = dtype_bytes(tensor.dtype);
  const std::string elements = std::to_string(tensor.bytes(test_case.dims) / element_bytes);
  result.detail = std::string(access->writes ? "wrote" : "read") + " past the end of " +
                  describe_tensor(spec, access->binding) + at_dims(spec, test_case.dims);
  if (auto highest = number_after(fault, "highest byte accessed was ")) {
    result.detail += ": element " + std::to_string(*highest / element_bytes) + " of a tensor of " +
                     elements + " elements";
    if (*highest >= (uint64_t{1} << 31)) result.detail += " (an index below 0 wraps around to one this large)";
  }
  result.detail += "; guard every " + std::string(access->writes ? "store" : "load") + " with an index < " + elements;
  return result;
}

// Checks that need only one run: the kernel's reported accesses, the guards and the inputs. Returns a failure
// or nothing.
std::optional<CaseResult> check_run(const OpSpec& spec, std::span<const uint32_t> spirv, const Harness& harness,
                                    const TestCase& test_case, const RunContents& contents) {
  // A store outside a tensor is the worse fault: a kernel that reads and writes at the same wrong index is
  // reported for its store.
  const std::string* chosen = nullptr;
  std::optional<SpirvAccess> chosen_access;
  for (const std::string& message : contents.faults) {
    const auto access = reported_access(spirv, message);
    const bool writes = access && access->writes;
    if (!chosen || (writes && !(chosen_access && chosen_access->writes))) {
      chosen = &message;
      chosen_access = access;
    }
  }
  if (chosen) return fault_failure(spec, chosen_access, test_case, *chosen);
  const auto tensors = spec.tensors();
  for (size_t t = 0; t < contents.tensors.size(); ++t) {
    if (!contents.damage[t]) continue;
    const size_t size = harness.tensor_bytes(t), element_bytes = dtype_bytes(tensors[t].dtype);
    CaseResult result = failure(test_case, spec, Status::OUT_OF_BOUNDS, tensors[t].name);
    const size_t elements = size / element_bytes;
    result.detail = "wrote past the end of " + describe_tensor(spec, t) + at_dims(spec, test_case.dims) +
                    ": element " + std::to_string((size + *contents.damage[t]) / element_bytes) + " of a tensor of " +
                    std::to_string(elements) + " elements was changed; guard every store with an index < " +
                    std::to_string(elements);
    return result;
  }
  // Scratch is zero when a call starts because the call before left it so: the kernel must restore it.
  for (size_t t = spec.call_tensor_count(); t < contents.tensors.size(); ++t) {
    const Bytes& scratch = contents.tensors[t];
    const auto dirty = std::find_if(scratch.begin(), scratch.end(), [](uint8_t byte) { return byte != 0; });
    if (dirty == scratch.end()) continue;
    CaseResult result = failure(test_case, spec, Status::INCORRECT_NUMERICAL, tensors[t].name);
    result.detail =
        "left " + describe_tensor(spec, t) + at_dims(spec, test_case.dims) + " nonzero at element " +
        std::to_string((dirty - scratch.begin()) / dtype_bytes(tensors[t].dtype)) +
        "; every call finds its scratch all zero only if the call before leaves it so: zero what the "
        "kernel wrote there (counters, partial results) once they are used";
    return result;
  }
  for (size_t t = 0; t < test_case.inputs.size(); ++t) {
    const Bytes& input = test_case.inputs[t].bytes;
    if (input == contents.tensors[t]) continue;
    const auto differs = std::mismatch(input.begin(), input.end(), contents.tensors[t].begin());
    if (differs.first != input.end()) {
      CaseResult result = failure(test_case, spec, Status::WROTE_INPUT, spec.inputs[t].name);
      result.detail = "changed " + describe_tensor(spec, t) + " at element " +
                      std::to_string((differs.first - input.begin()) / dtype_bytes(spec.inputs[t].dtype)) +
                      "; inputs are read-only: declare them `readonly` and write only the outputs";
      return result;
    }
  }
  return std::nullopt;
}

HostTensor output_tensor(const TensorSpec& tensor, const DimValues& dims, const Bytes& contents) {
  HostTensor values(tensor.dtype, tensor.shape_at(dims));
  std::copy_n(contents.begin(), values.bytes.size(), values.bytes.begin());
  return values;
}

// The reference on the case's inputs with their subnormals flushed to zero, for the outputs compared in ulps
// (compare_outputs): where the op declares TOLERANCE <n>ulp and an input holds a subnormal; else empty.
std::vector<HostTensor> flushed_reference(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case) {
  if (std::none_of(spec.outputs.begin(), spec.outputs.end(),
                   [&](const TensorSpec& output) { return spec.tolerance_of(output).ulp > 0; }) ||
      std::none_of(test_case.inputs.begin(), test_case.inputs.end(), has_subnormal))
    return {};
  TestCase flushed = test_case;
  for (HostTensor& input : flushed.inputs) input = flush_subnormals(std::move(input));
  return run_reference(spec, reference, flushed);
}

CaseResult check_case(const OpSpec& spec, ReferenceFunction reference, std::span<const uint32_t> spirv,
                      const Harness& harness, const TestCase& test_case, const RunContents& first_run,
                      const RunContents& second_run) {
  for (const RunContents* run : {&first_run, &second_run})
    if (auto failed = check_run(spec, spirv, harness, test_case, *run)) return *failed;
  const std::vector<Bytes>& first = first_run.tensors;
  const std::vector<Bytes>& second = second_run.tensors;

  const auto expected = run_reference(spec, reference, test_case);
  const auto magnitudes = reference_magnitudes(spec, reference, test_case);
  const auto flushed = flushed_reference(spec, reference, test_case);
  const NanRule nan = test_case.name == "nonfinite" ? NanRule::free_where_reference_is_nan : NanRule::must_match;
  CaseResult result = failure(test_case, spec, Status::PASSED, "");
  for (size_t o = 0; o < spec.outputs.size(); ++o) {
    const TensorSpec& output = spec.outputs[o];
    const size_t t = spec.inputs.size() + o;
    const size_t element_bytes = dtype_bytes(output.dtype);
    const size_t elements = harness.tensor_bytes(t) / element_bytes;
    const Bytes poison_a = poison(output.dtype, 0), poison_b = poison(output.dtype, 1);
    int64_t unwritten = 0, first_unwritten = -1, differing = 0, first_difference = -1;
    // Two runs that left the same bytes differ nowhere and left no element unwritten (the two poisons
    // differ): one comparison of the whole tensor, the element loop only where they differ.
    const bool same = first[t] == second[t];
    for (size_t i = 0; i < (same ? 0 : elements); ++i) {
      const auto a = first[t].begin() + static_cast<std::ptrdiff_t>(i * element_bytes);
      const auto b = second[t].begin() + static_cast<std::ptrdiff_t>(i * element_bytes);
      if (std::equal(poison_a.begin(), poison_a.end(), a) && std::equal(poison_b.begin(), poison_b.end(), b)) {
        if (unwritten++ == 0) first_unwritten = static_cast<int64_t>(i);
      } else if (!std::equal(a, a + static_cast<std::ptrdiff_t>(element_bytes), b)) {
        if (differing++ == 0) first_difference = static_cast<int64_t>(i);
      }
    }
    result.tensor = output.name;
    const Tolerance tolerance = spec.tolerance_of(output);
    result.comparison = compare_outputs(output_tensor(output, test_case.dims, first[t]), expected[o], tolerance,
                                        magnitudes.empty() ? nullptr : &magnitudes[o], nan,
                                        flushed.empty() ? nullptr : &flushed[o]);
    const std::string where = at_dims(spec, test_case.dims);
    // Differences first: a kernel that reads its output before writing it leaves the poison unchanged
    // wherever it adds zero (y += 0 keeps NaN's payload and 31337), which would otherwise read as unwritten.
    if (differing > 0) {
      result.status = Status::NONDETERMINISTIC;
      result.detail = "two runs on the same inputs gave different " + output.name + where + " at " +
                      std::to_string(differing) + " elements (first at index " + std::to_string(first_difference) +
                      "); does the kernel read its output before writing it, or race between invocations?";
      return result;
    }
    if (unwritten > 0) {
      result.status = Status::INCORRECT_NUMERICAL;
      result.detail = std::to_string(unwritten) + " of " + std::to_string(elements) + " elements of output " +
                      output.name + where + " were never written (first at index " + std::to_string(first_unwritten) +
                      "); the grid or the indexing does not cover the whole output";
      return result;
    }
    if (!result.comparison.passed()) {
      result.status = Status::INCORRECT_NUMERICAL;
      result.detail = mismatch_detail(result.comparison, output.name + where);
      return result;
    }
  }
  return result;
}

// `runs` more runs of a case that passed, on the same inputs: any output byte that differs from the first run's
// is a race (or a read of uninitialised memory) that two runs did not show.
CaseResult stress(const OpSpec& spec, std::span<const uint32_t> spirv, Harness& harness, const TestCase& test_case,
                  const RunContents& first_run, CaseResult passed, int runs) {
  for (int run = 0; run < runs; ++run) {
    const RunContents again = harness.run(test_case.inputs, 0);
    if (auto failed = check_run(spec, spirv, harness, test_case, again)) return *failed;
    for (size_t o = 0; o < spec.outputs.size(); ++o) {
      const size_t t = spec.inputs.size() + o;
      const Bytes& a = first_run.tensors[t];
      const Bytes& b = again.tensors[t];
      if (a == b) continue;
      const size_t element_bytes = dtype_bytes(spec.outputs[o].dtype);
      int64_t differing = 0, first_difference = -1;
      for (size_t i = 0; i + element_bytes <= a.size(); i += element_bytes)
        if (!std::equal(a.begin() + static_cast<std::ptrdiff_t>(i),
                        a.begin() + static_cast<std::ptrdiff_t>(i + element_bytes),
                        b.begin() + static_cast<std::ptrdiff_t>(i)) &&
            differing++ == 0)
          first_difference = static_cast<int64_t>(i / element_bytes);
      if (differing == 0) continue;
      const TensorSpec& output = spec.outputs[o];
      CaseResult result = failure(test_case, spec, Status::NONDETERMINISTIC, output.name);
      const HostTensor x = output_tensor(output, test_case.dims, a), y = output_tensor(output, test_case.dims, b);
      result.detail = "stress run " + std::to_string(run + 1) + " of " + std::to_string(runs) +
                      " on the same inputs gave different " + output.name + at_dims(spec, test_case.dims) + " at " +
                      std::to_string(differing) + " elements (first at index " + std::to_string(first_difference) +
                      ": " + seven_digits(y.value(first_difference)) + ", the first run " +
                      seven_digits(x.value(first_difference)) +
                      "); a race between invocations: is a barrier() missing between writing and reading shared "
                      "memory?";
      return result;
    }
  }
  return passed;
}

std::string triple(std::array<uint32_t, 3> v) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

std::optional<std::string> dims_block_mismatch(const OpSpec& spec, const SpirvInterface& interface) {
  const auto& members = interface.push_constant_members;
  if (spec.dims.empty()) {
    if (interface.uses_push_constants)
      return std::string("uses push constants, but the op has no symbolic dims; hard-code its shapes");
    return std::nullopt;
  }
  std::string block = "layout(push_constant) uniform Dims {";
  for (const DimSpec& dim : spec.dims) block += " uint " + dim.name + ";";
  block += " } dims;";
  if (!interface.uses_push_constants) return std::nullopt;
  if (members.size() != spec.dims.size())
    return "its push-constant block has " + std::to_string(members.size()) + " members; the op's dims arrive as " +
           block;
  for (size_t i = 0; i < members.size(); ++i) {
    const SpirvMember& member = members[i];
    const bool named = member.name.empty() || member.name == spec.dims[i].name;
    if (!named || member.offset != 4 * i || member.type.kind != "uint" || member.type.width != 32 ||
        member.components != 1)
      return "push-constant member " + std::to_string(i) + (member.name.empty() ? "" : " (" + member.name + ")") +
             " is not `uint " + spec.dims[i].name + "` at offset " + std::to_string(4 * i) + "; declare " + block;
  }
  return std::nullopt;
}

// Why the kernel could write one of its inputs, read from its SPIR-V before it runs: an input binding not
// declared readonly (NonWritable), or one that a store, an atomic or a cooperative-matrix store reaches. A run
// shows only the writes that change a value; one that writes a value back, or writes scratch and restores it,
// would pass.
std::optional<CaseResult> writable_input(const OpSpec& spec, const SpirvInterface& interface,
                                         std::span<const uint32_t> spirv) {
  const auto rejected = [&](size_t input, const std::string& why) {
    CaseResult result{"interface", 0, Status::WROTE_INPUT, spec.inputs[input].name};
    result.detail = describe_tensor(spec, input) + " " + why +
                    "; inputs are read-only: declare them `readonly` and write only the outputs";
    return result;
  };
  for (const SpirvAccess& write : writes_of(spirv))
    if (write.set == 0 && write.binding < spec.inputs.size()) return rejected(write.binding, "is written by a store");
  for (const SpirvBinding& binding : interface.bindings)
    if (binding.set == 0 && binding.binding < spec.inputs.size() && !binding.readonly)
      return rejected(binding.binding, "is not declared readonly");
  return std::nullopt;
}

// The layer's errors while the kernel's pipeline was made are the kernel's (a shader module using what the
// device was not given): INTERFACE_MISMATCH quoting the first, every one in the log.
std::optional<Verdict> layer_rejection(const std::vector<std::string>& errors, const Verdict& so_far) {
  if (errors.empty()) return std::nullopt;
  Verdict verdict = so_far;
  verdict.status = Status::INTERFACE_MISMATCH;
  verdict.reason = "the Vulkan validation layer rejected the kernel's pipeline: " + errors.front().substr(0, 400);
  for (const std::string& error : errors) verdict.log += "Vulkan validation layer: " + error + "\n";
  return verdict;
}

// Whether a timing on `device` would time the validation's instruments instead of the kernel alone: shaders
// instrumented by GPU-assisted validation, or every access bounds-checked under robust buffer access (a
// validation device without the layer: the checked-in decode_attention_f16 timed 135.9-166.6 us there on an
// H200, 41.9 plain).
bool instrumented(const Device& device) {
  return device.gpu_assisted_validation() || device.robust_buffer_access();
}

// The device a timing runs on where `device` is instrumented: the same physical device opened plainly, as an
// application opens it.
Device plain_twin(const Device& device) { return Device(DeviceOptions{.selector = std::to_string(device.info().index)}); }

// One run of the kernel at the op's bench dims on `inputs`, from poisoned outputs, and what it left.
TimedSizeOutput run_at_timed_size(Device& device, const OpSpec& spec, const KernelBinary& binary,
                                  const TestCase& inputs) {
  Kernel kernel(device, binary.spirv, static_cast<uint32_t>(spec.tensors().size()),
                static_cast<uint32_t>(inputs.dims.size()));
  std::vector<Buffer> buffers = case_buffers(device, spec, inputs);
  std::vector<const Buffer*> bound;
  for (const Buffer& buffer : buffers) bound.push_back(&buffer);
  Sequence sequence(device, 0);
  sequence.dispatch(kernel, bound, binary.grid.evaluate(inputs.dims), push_constants(inputs.dims)).run();
  return {inputs, download_outputs(spec, inputs.dims, buffers), false};
}

// The kernel at the size it is timed at (the op's bench dims on this device): timed where options.timing_runs >
// 0, over the first kTimedInputSets of timed_size_case_names(), and run once on each of the others (on all of
// them where it is not timed), every output checked against the reference (TimedOutputCheck). A rejection, or
// nothing, with the verdict given its timing and a passed "timed" case per case checked. A correct kernel stays
// correct where it cannot be run there (a queue without timestamps, a lost device, memory the device lacks at
// that size): the verdict's timing_error says why.
std::optional<Verdict> check_timed_size(Device& device, const OpSpec& spec, ReferenceFunction reference,
                                        const KernelBinary& kernel, const ValidationOptions& options,
                                        const DimValues& probe, Verdict& verdict) {
  const std::span<const char* const> names = timed_size_case_names();
  const DimValues dims = spec.bench_dims(is_cpu_device(device.info()));
  std::optional<Timing> timing;
  try {
    std::optional<Device> plain;
    if (instrumented(device)) plain.emplace(plain_twin(device));
    Device& on = plain ? *plain : device;
    const TimedOutputCheck check(spec, reference, dims, options.base_seed, probe, names.size());
    std::vector<TimedSizeOutput> timed;
    if (options.timing_runs > 0) {
      try {
        if (options.test_fault == kTimingFault) throw VulkanError(VK_ERROR_FEATURE_NOT_PRESENT, "timing the kernel");
        TimedRun run = time_kernel(on, spec, kernel, options.timing_runs, options.base_seed);
        timing = run.timing;
        timed = std::move(run.outputs);
      } catch (const std::exception& error) {
        verdict.timing_error = error.what();
      }
    }
    // One case at a time, the timed ones first: at a model's sizes each case's tensors may take gigabytes.
    for (size_t c = 0; c < names.size(); ++c) {
      const TimedSizeOutput run = c < timed.size() ? std::move(timed[c])
                                                   : run_at_timed_size(on, spec, kernel,
                                                                       make_case(spec, names[c], options.base_seed, dims));
      if (auto wrong = check(run)) {
        Verdict rejected = verdict;
        rejected.status = wrong->status;
        rejected.reason = "case timed: " + wrong->detail;
        rejected.timing_error.clear();
        rejected.cases.push_back(std::move(*wrong));
        return rejected;
      }
      verdict.cases.push_back(failure(run.inputs, spec, Status::PASSED, ""));
      verdict.cases.back().name = "timed";
    }
  } catch (const std::exception& error) {
    std::erase_if(verdict.cases, [](const CaseResult& c) { return c.name == "timed"; });
    verdict.timing_error = "not checked at the timed size " + dims_text(spec, dims) + ": " + error.what();
    return std::nullopt;
  }
  verdict.timing = timing;
  return std::nullopt;
}

}  // namespace

DeviceOptions validation_device_options() {
  const bool layer = Device::validation_layer_available();
  return DeviceOptions{.robust_buffer_access = !layer, .gpu_assisted_validation = layer};
}

std::vector<uint32_t> push_constants(const DimValues& dims) {
  return std::vector<uint32_t>(dims.begin(), dims.end());
}

std::vector<HostTensor> run_reference(const OpSpec& spec, ReferenceFunction reference, const TestCase& test_case) {
  std::vector<ConstTensorView> in;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const HostTensor& tensor = test_case.inputs.at(i);
    in.push_back({spec.inputs[i].name, tensor.dtype, tensor.bytes.data(), tensor.shape});
  }
  std::vector<HostTensor> outputs;
  for (const auto& tensor : spec.outputs) outputs.emplace_back(tensor.dtype, tensor.shape_at(test_case.dims));
  std::vector<TensorView> out;
  for (size_t o = 0; o < spec.outputs.size(); ++o)
    out.push_back({spec.outputs[o].name, outputs[o].dtype, outputs[o].bytes.data(), outputs[o].shape});
  reference(in, out, Params(spec.params));
  return outputs;
}

std::vector<HostTensor> reference_magnitudes(const OpSpec& spec, ReferenceFunction reference,
                                             const TestCase& test_case) {
  const auto is_float = [](const TensorSpec& t) { return dtype_info(t.dtype).kind == DTypeKind::Float; };
  if (std::none_of(spec.outputs.begin(), spec.outputs.end(), is_float)) return {};
  const ReferenceFunction terms = find_terms(spec.name);
  TestCase absolute;  // the inputs of the default terms, the reference on their absolute values
  if (!terms) absolute = test_case;
  bool finite_inputs = true;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (!is_float(spec.inputs[i])) continue;
    const HostTensor& input = test_case.inputs.at(i);
    for (int64_t e = 0; e < input.elements(); ++e) {
      const double value = std::fabs(input.value(e));
      finite_inputs = finite_inputs && std::isfinite(value);
      if (!terms) absolute.inputs.at(i).set(e, value);
    }
  }
  std::vector<HostTensor> magnitudes = terms ? run_reference(spec, terms, test_case)
                                             : run_reference(spec, reference, absolute);
  // An infinite magnitude says the terms overflowed the output's dtype (compare_outputs leaves such an element
  // unbounded); one that an infinite input caused says nothing about rounding, so it becomes NaN (ignored).
  if (!finite_inputs)
    for (size_t o = 0; o < magnitudes.size(); ++o) {
      if (!is_float(spec.outputs[o])) continue;
      for (int64_t e = 0; e < magnitudes[o].elements(); ++e)
        if (std::isinf(magnitudes[o].value(e))) magnitudes[o].set(e, std::nan(""));
    }
  return magnitudes;
}

std::optional<std::string> unsupported_on(const OpSpec& spec, const DeviceInfo& device) {
  for (const TensorSpec& tensor : spec.tensors())
    if (auto missing = missing_storage_feature(tensor.dtype, device.features))
      return "op '" + spec.name + "': tensor " + tensor.name + ": " + *missing + " (" + device.name + ")";
  return std::nullopt;
}

std::optional<std::string> unsupported_on(const OpSpec& spec, const DeviceInfo& device,
                                          std::span<const uint32_t> spirv) {
  if (auto dtype = unsupported_on(spec, device)) return dtype;
  std::string error;
  const auto interface = reflect_spirv(spirv, &error);
  if (!interface) return std::nullopt;  // not the device's fault: validation reports it
  if (auto problem = capability_problem(*interface, device); problem && problem->device_lacks)
    return "op '" + spec.name + "': its kernel declares the SPIR-V capability " + problem->capability + ", which " +
           device.name + " does not support";
  return std::nullopt;
}

std::optional<std::string> interface_mismatch(const OpSpec& spec, const SpirvInterface& interface,
                                              const DeviceInfo& device) {
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
    // A tensor may be declared more than once, as views of other element types (`uvec4 a8[]` for 16-byte loads
    // beside `float16_t a[]` for single elements, as llama.cpp's shaders do): each must be a storage buffer.
    for (const SpirvBinding& view : interface.bindings) {
      if (view.set != 0 || view.binding != i) continue;
      if (!view.buffer_block)
        return describe_tensor(spec, i) + " is a " + view.storage_class +
               " resource; the contract wants a std430 storage buffer (a `buffer` block)";
      if (i >= spec.inputs.size() && i < spec.call_tensor_count() && view.readonly)
        return describe_tensor(spec, i) + " is declared readonly, but it is an output the kernel must write";
    }
  }
  if (auto mismatch = dims_block_mismatch(spec, interface)) return mismatch;
  if (auto problem = capability_problem(interface, device)) {
    // Tensor cores belong in VARIANTS, which run only where the device has what they declare.
    const bool tensor_cores = problem->capability.find("CooperativeMatrix") != std::string::npos ||
                              problem->capability.find("Tensor") != std::string::npos ||
                              problem->capability.find("SPIR-V 1.6") != std::string::npos;
    if (problem->device_lacks)
      return "declares the SPIR-V capability " + problem->capability + ", which " + device.name +
             " does not support; do without it" +
             (tensor_cores ? " here (a VARIANT of the op may use it, for the devices that have it)"
                           : " (e.g. convert to float or int for arithmetic)");
    return "declares the SPIR-V capability " + problem->capability +
           ", which kernelgen's runtime does not enable on any device; do without it (8/16-bit push "
           "constants or "
           "uniforms are not part of the kernel contract)";
  }
  const auto& size = interface.local_size;
  if (size[0] == 0 || size[1] == 0 || size[2] == 0)
    return "declares no workgroup size; add layout(local_size_x = ..., local_size_y = ..., local_size_z = ...) in;";
  for (int d = 0; d < 3; ++d) {
    if (size[d] > device.max_workgroup_size[d])
      return "workgroup size " + triple(size) + " exceeds the device's maximum " + triple(device.max_workgroup_size);
  }
  const uint64_t invocations = uint64_t{size[0]} * size[1] * size[2];
  if (invocations > device.max_workgroup_invocations)
    return "workgroup size " + triple(size) + " has " + std::to_string(invocations) +
           " invocations; the device allows at most " + std::to_string(device.max_workgroup_invocations);
  if (device.max_shared_memory_bytes > 0 && interface.workgroup_memory_bytes > device.max_shared_memory_bytes)
    return "its shared variables need at least " + std::to_string(interface.workgroup_memory_bytes) +
           " bytes per workgroup; the device allows " + std::to_string(device.max_shared_memory_bytes) +
           ": use smaller tiles";
  return std::nullopt;
}

std::optional<std::string> grid_problem(const OpSpec& spec, const GridExpression& grid,
                                        std::span<const DimValues> sizes, const DeviceInfo& device) {
  for (const DimValues& dims : sizes) {
    Grid launch;
    try {
      launch = grid.evaluate(dims);
    } catch (const std::exception& error) {
      return "dispatch `" + grid.text() + "`" + at_dims(spec, dims) + ": " + error.what();
    }
    const std::array<uint32_t, 3> counts{launch.x, launch.y, launch.z};
    for (int d = 0; d < 3; ++d)
      if (counts[d] > device.max_workgroup_count[d])
        return "dispatch grid " + triple(counts) + at_dims(spec, dims) + " is outside 1.." +
               triple(device.max_workgroup_count) + " workgroups per dimension";
  }
  return std::nullopt;
}

Verdict validate_kernel(Device& device, const OpSpec& spec, ReferenceFunction reference, const KernelBinary& kernel,
                        const ValidationOptions& options) {
  Verdict verdict;
  verdict.base_seed = options.base_seed;
  verdict.device = device.info().name;
  verdict.subgroup_sizes = {options.required_subgroup_size ? options.required_subgroup_size
                                                           : device.info().subgroup_size};

  std::string error;
  const auto interface = reflect_spirv(kernel.spirv, &error);
  if (!interface) {
    verdict.status = Status::INTERFACE_MISMATCH;
    verdict.reason = "the binary is not SPIR-V: " + error;
    return verdict;
  }
  const std::vector<DimValues> sizes = options.declared_sizes_two_cases
                                           ? declared_sizes(spec, interface->local_size)
                                           : validation_sizes(spec, interface->local_size, options.base_seed);
  const DimValues stress_size = largest_declared_size(spec, interface->local_size);
  // The size whose tensors take the most bytes (a drawn size may be below the ragged one): the reference's check,
  // the out-of-memory message's size and the timed-output check's probe.
  const DimValues largest = *std::max_element(sizes.begin(), sizes.end(), [&](const DimValues& a, const DimValues& b) {
    return allocated_bytes(spec, a) < allocated_bytes(spec, b);
  });
  if (!spec.inputs.empty()) {
    const auto a = run_reference(spec, reference, make_case(spec, "uniform", options.base_seed, largest));
    const auto b = run_reference(spec, reference, make_case(spec, "uniform", ~options.base_seed, largest));
    if (a == b)
      throw std::invalid_argument("op '" + spec.name +
                                  "': the reference gives the same outputs for two different random inputs; check "
                                  "that it reads `inputs` and writes `outputs` (" + spec.reference_path + ")");
  }
  auto mismatch = interface_mismatch(spec, *interface, device.info());
  if (!mismatch) mismatch = grid_problem(spec, kernel.grid, sizes, device.info());
  if (mismatch) {
    verdict.status = Status::INTERFACE_MISMATCH;
    verdict.reason = *mismatch;
    return verdict;
  }
  if (auto written = writable_input(spec, *interface, kernel.spirv)) {
    verdict.status = written->status;
    verdict.reason = written->detail;
    verdict.cases.push_back(std::move(*written));
    return verdict;
  }

  device.take_validation_errors();  // whatever came before is not this kernel's
  try {
    Kernel pipeline(device, kernel.spirv, static_cast<uint32_t>(spec.tensors().size()),
                    static_cast<uint32_t>(spec.dims.size()), options.required_subgroup_size);
    if (auto rejected = layer_rejection(device.take_validation_errors(), verdict)) return *rejected;
    for (const DimValues& dims : sizes) {
      Harness harness(device, pipeline, spec, dims, kernel.grid.evaluate(dims), options.test_fault);
      // The stress runs: the first case at the largest declared size, where the most workgroups run at once
      // of the sizes every validation shares (the drawn ones after it change from seed to seed).
      int stress_runs = dims == stress_size ? options.stress_runs : 0;
      std::vector<TestCase> cases = make_cases(spec, options.base_seed, dims);
      if (options.declared_sizes_two_cases && cases.size() > 2) cases.resize(2);
      for (const TestCase& test_case : cases) {
        const auto first = harness.run(test_case.inputs, 0);
        const auto second = harness.run(test_case.inputs, 1);
        CaseResult result = check_case(spec, reference, kernel.spirv, harness, test_case, first, second);
        if (result.passed() && stress_runs > 0)
          result = stress(spec, kernel.spirv, harness, test_case, first, result, std::exchange(stress_runs, 0));
        verdict.cases.push_back(std::move(result));
      }
      // The first size that fails is the verdict; the sizes after it would only repeat it.
      if (std::any_of(verdict.cases.begin(), verdict.cases.end(), [](const CaseResult& c) { return !c.passed(); }))
        break;
    }
  } catch (const VulkanError& failure) {
    // A lost device or exhausted memory ends this candidate, not the search: its worker process goes with it.
    verdict.status = Status::RUNTIME_ERROR;
    verdict.reason = std::string(failure.what()) + " on " + device.info().name;
    if (failure.result() == VK_ERROR_OUT_OF_DEVICE_MEMORY || failure.result() == VK_ERROR_OUT_OF_HOST_MEMORY)
      verdict.reason += "; its largest size validated, " + dims_text(spec, largest) + ", needs " +
                        std::to_string(allocated_bytes(spec, largest)) +
                        " bytes of tensors: lower the op's DIMS if the device cannot hold them";
    return verdict;
  } catch (const std::invalid_argument& failure) {
    verdict.status = Status::RUNTIME_ERROR;
    verdict.reason = failure.what();
    return verdict;
  }

  for (const std::string& error : device.take_validation_errors())
    verdict.log += "Vulkan validation layer: " + error + "\n";
  for (const CaseResult& c : verdict.cases) {
    if (c.status != Status::PASSED) {
      verdict.status = c.status;
      verdict.reason = "case " + c.name + ": " + c.detail;
      return verdict;
    }
  }
  if (options.timing_runs > 0 || options.check_timed_size)
    if (auto wrong = check_timed_size(device, spec, reference, kernel, options, largest, verdict)) return *wrong;
  return verdict;
}

TimedRun time_kernel(Device& device, const OpSpec& spec, const KernelBinary& binary, int runs, uint64_t seed) {
  if (instrumented(device)) {
    Device plain = plain_twin(device);
    return time_kernel(plain, spec, binary, runs, seed);
  }
  const auto tensors = spec.tensors();
  const DimValues dims = spec.bench_dims(is_cpu_device(device.info()));
  Kernel kernel(device, binary.spirv, static_cast<uint32_t>(tensors.size()), static_cast<uint32_t>(dims.size()));
  std::vector<TestCase> cases;
  for (size_t c = 0; c < kTimedInputSets; ++c) cases.push_back(make_case(spec, timed_size_case_names()[c], seed, dims));
  TimedBuffers buffers(device, spec, std::move(cases));

  const Grid grid = binary.grid.evaluate(dims);
  const std::vector<uint32_t> pushed = push_constants(dims);
  TimingOptions options;
  options.runs = runs;
  DispatchTimer timer(
      device, buffers.bindings(),
      [&](Sequence& sequence, const std::vector<const Buffer*>& bound) { sequence.dispatch(kernel, bound, grid, pushed); },
      options);
  const TimingStats stats = timer.measure();

  TimedRun timed;
  Timing& timing = timed.timing;
  timing.device = device.info().name;
  timing.runs = stats.runs;
  timing.dims = dims_text(spec, dims);
  timing.median_ns = stats.median_ns;
  timing.min_ns = stats.min_ns;
  timing.p25_ns = stats.p25_ns;
  timing.p75_ns = stats.p75_ns;
  timing.flush_bytes = timer.flush_bytes();
  timing.flush = flush_kind_name(timer.flush_kind());
  timing.gbytes_per_second = spec.bytes_at(dims) / timing.median_ns;
  timing.gflops = spec.flops_at(dims) / timing.median_ns;
  for (const PipelineStatistic& statistic : kernel.statistics())
    timing.pipeline.emplace_back(statistic.name, statistic.value);
  for (size_t set = 0; set < buffers.cases().size(); ++set)
    timed.outputs.push_back({buffers.cases()[set], buffers.outputs(set), true});
  return timed;
}

}  // namespace kernelgen
