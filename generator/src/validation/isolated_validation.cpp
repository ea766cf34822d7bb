#include "kernelgen/validation/isolated_validation.hpp"
#include "kernelgen/validation/protocol.hpp"
#include "kernelgen/spirv_interface.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <vulkan/vulkan.h>
#include <stdexcept>

#include "kernelgen/contract/reference_module.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/validation/evaluate.hpp"
#include "kernelgen/validation/subgroup_sizes.hpp"
#include "kernelgen/validation/worker_environment.hpp"

extern char** environ;

namespace kernelgen {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr size_t kStderrTail = 4000;

// What the worker answered, line by line.
struct WorkerAnswer {
  std::string device;
  uint32_t subgroup_size = 0;
  std::optional<KernelBinary> binary;
  std::optional<Verdict> verdict;
  std::optional<std::string> error;  // it could not validate anything
  bool spec_error = false;           // ... because the spec is broken
  bool device_error = false;         // ... because it could not create its device
};

// One line of the protocol; a line that is not one is ignored, as the worker's stdout carries nothing else.
void read_answer_line(const OpSpec& spec, const std::string& line, WorkerAnswer& answer) {
  json message;
  try {
    message = json::parse(line);
  } catch (const json::exception&) {
    return;
  }
  if (!message.is_object()) return;
  if (message.contains("device")) answer.device = message["device"].get<std::string>();
  if (message.contains("subgroup_size")) answer.subgroup_size = message["subgroup_size"].get<uint32_t>();
  if (message.contains("binary")) {
    const json& binary = message["binary"];
    answer.binary = KernelBinary{binary.at("spirv").get<std::vector<uint32_t>>(),
                                 GridExpression::parse(binary.at("grid").get<std::string>(), spec.dim_names())};
  }
  if (message.contains("verdict")) answer.verdict = message["verdict"].get<Verdict>();
  if (message.contains("error")) {
    answer.error = message["error"].get<std::string>();
    answer.spec_error = message.value("spec_error", false);
    answer.device_error = message.value("device_error", false);
  }
}

std::string describe_signal(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  const char* description = strsignal(signal);
  return "signal " + std::to_string(signal) + (abbreviation ? std::string(" (SIG") + abbreviation : std::string(" (")) +
         (description ? std::string(abbreviation ? ": " : "") + description : std::string()) + ")";
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

std::filesystem::path own_executable() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find this program's executable (/proc/self/exe): " + error.message());
  return path;
}

// An fd holding `bytes` from offset 0, to be the child's stdin: no pipe to fill, so no SIGPIPE and no deadlock
// when the child dies before reading it.
int request_fd(const std::string& bytes) {
  const int fd = ::memfd_create("kernelgen-validation-request", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("cannot create the validation request: ") + std::strerror(errno));
  for (size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::runtime_error(std::string("cannot write the validation request: ") + std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

// The child's exit, its stdout and the tail of its stderr.
struct ChildRun {
  bool timed_out = false;
  int wait_status = 0;
  std::string out;
  std::string err_tail;
};

// `settings`: NAME=value for the child, each on top of (or instead of) what it inherits.
ChildRun run_child(const std::filesystem::path& tool, const std::filesystem::path& reference_module,
                   const std::string& request, double timeout_s, const std::vector<std::string>& settings) {
  const int input = request_fd(request);
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so that a timeout kills every process the driver might have started; default
  // signal handling and an empty mask, whatever this process's threads do with theirs.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);

  const std::string program = tool.string(), module = reference_module.string();
  std::vector<char*> argv = {const_cast<char*>(program.c_str()), const_cast<char*>("validate-worker")};
  if (!module.empty()) argv.insert(argv.end(), {const_cast<char*>("--reference"), const_cast<char*>(module.c_str())});
  argv.push_back(nullptr);
  pid_t pid = 0;
  std::vector<char*> environment = worker_environment(environ);
  for (const std::string& setting : settings) {
    const std::string_view name(setting.data(), setting.find('=') + 1);
    std::erase_if(environment, [&](const char* entry) { return entry && std::string_view(entry).starts_with(name); });
    environment.insert(environment.end() - 1, const_cast<char*>(setting.c_str()));
  }
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(input);
  ::close(out[1]);
  ::close(err[1]);
  if (spawned != 0) {
    ::close(out[0]);
    ::close(err[0]);
    throw std::runtime_error("cannot start the validation worker `" + program + " validate-worker`: " +
                             std::strerror(spawned));
  }

  ChildRun run;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string err_text;
  char buffer[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      run.timed_out = true;
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        continue;
      }
      if (i == 0) {
        run.out.append(buffer, static_cast<size_t>(n));
      } else {
        err_text.append(buffer, static_cast<size_t>(n));
        if (err_text.size() > 2 * kStderrTail) err_text.erase(0, err_text.size() - kStderrTail);
      }
    }
  }
  bool cut_off = run.timed_out;
  for (const pollfd& fd : fds) {
    if (fd.fd < 0) continue;
    ::close(fd.fd);
    cut_off = true;
  }
  // A driver may still be spinning on the kernel in threads of its own: the whole group goes.
  if (cut_off) ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
  }
  run.err_tail = err_text.size() > kStderrTail ? err_text.substr(err_text.size() - kStderrTail) : err_text;
  return run;
}

}  // namespace

double validation_timeout(const std::optional<std::string>& setting, int concurrent_searches) {
  if (!setting || setting->empty()) return IsolationSettings{}.timeout_s * std::max(1, concurrent_searches);
  size_t used = 0;
  double seconds = 0;
  try {
    seconds = std::stod(*setting, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != setting->size() || !(seconds > 0) || seconds > 86400)
    throw std::invalid_argument("KERNELGEN_VALIDATION_TIMEOUT_S='" + *setting +
                                "': expected the seconds a candidate's validation may take, e.g. 60");
  return seconds;
}

namespace {

// Lavapipe's subgroups are its vectors' 32-bit lanes: 8 on a CPU with AVX2 (256 bits), 4 with 128-bit vectors.
// The settings that make it run 4 wide where it runs wider, or none (another driver, or lavapipe at 4 already).
// LP_NATIVE_VECTOR_WIDTH=128 alone changes what Mesa 22.3 reports (subgroupSize, gl_SubgroupSize,
// gl_NumSubgroups) but not the width its compute shaders run at (gl_SubgroupID, subgroupAdd stay 8 wide);
// limiting its CPU to SSE4.1 does both.
std::vector<std::string> lavapipe_second_width(const DeviceInfo& device) {
  if (device.driver.find("llvmpipe") == std::string::npos && device.name.find("llvmpipe") == std::string::npos)
    return {};
  if (device.subgroup_size <= 4) return {};
  return {"LP_NATIVE_VECTOR_WIDTH=128", "GALLIUM_OVERRIDE_CPU_CAPS=sse4.1"};
}

// Whether a module converts between f16 and f32 or does f16 arithmetic. Limited to SSE4.1, Mesa 22.3's lavapipe
// has no F16C for those conversions, and its JIT aborts on the library call LLVM emits instead (SIGABRT on
// matmul_f16's kernels in the catalog's replay): such a kernel meets the second width nowhere, which its verdict's
// subgroup_sizes then shows (one size).
bool has_half_floats(const SpirvInterface& interface) {
  for (const std::string& capability : interface.capabilities)
    if (capability == "Float16" || capability.find("16BitAccess") != std::string::npos ||
        capability == "StoragePushConstant16" || capability == "StorageInputOutput16")
      return true;
  return false;
}

// One validation of a kernel on a device after the first, at another subgroup size: one the device is made to
// run it at (VK_EXT_subgroup_size_control), or lavapipe's second width (the settings in its worker's
// environment).
struct SubgroupPass {
  uint32_t required_size = 0;
  std::vector<std::string> environment;
  std::string what;  // how the size was set, for a rejection's reason
};

uint32_t workgroup_invocations(const SpirvInterface& interface) {
  return interface.local_size[0] * interface.local_size[1] * interface.local_size[2];
}

// The passes after the first on `device` for the kernel it compiled there: the GPU's smallest and largest
// subgroup sizes where they differ from its default, then lavapipe's second width for a kernel without half
// floats.
std::vector<SubgroupPass> later_passes(const DeviceInfo& device, const std::vector<uint32_t>& spirv) {
  std::vector<SubgroupPass> passes;
  const std::string range = " of the device's " + std::to_string(device.min_subgroup_size) + " to " +
                            std::to_string(device.max_subgroup_size) + ", VK_EXT_subgroup_size_control";
  const std::optional<SpirvInterface> interface = reflect_spirv(spirv);  // read once for both questions
  for (const uint32_t size : extra_subgroup_sizes(device, interface ? workgroup_invocations(*interface) : 0))
    passes.push_back({size,
                      {},
                      std::string("required: the ") +
                          (size == device.min_subgroup_size ? "smallest" : "largest") + range});
  if (auto second = lavapipe_second_width(device); !second.empty() && !(interface && has_half_floats(*interface)))
    passes.push_back({0, second, "lavapipe's second width: " + second[0] + ", " + second[1]});
  return passes;
}

// One worker on one device (null: the worker's own choice), with `setting` in its environment (see run_child).
Verdict evaluate_on_worker(const IsolationSettings& settings, const std::filesystem::path& tool, const OpSpec& spec,
                           const std::string& glsl, const ValidationOptions& options, const DeviceInfo* device,
                           KernelBinary* binary, const std::vector<std::string>& setting = {}) {
  const double timeout_s = settings.timeout_s;
  json request = {{"spec", to_json(spec)},
                  {"glsl", glsl},
                  {"base_seed", options.base_seed},
                  {"timing_runs", options.timing_runs},
                  {"stress_runs", options.stress_runs},
                  {"check_timed_size", options.check_timed_size},
                  {"declared_sizes_two_cases", options.declared_sizes_two_cases},
                  {"required_subgroup_size", options.required_subgroup_size}};
  if (device) request["device"] = device->index;
  const ChildRun run = run_child(tool, settings.reference_module, request.dump(), timeout_s, setting);

  WorkerAnswer answer;
  for (size_t start = 0; start < run.out.size();) {
    size_t end = run.out.find('\n', start);
    if (end == std::string::npos) end = run.out.size();
    read_answer_line(spec, run.out.substr(start, end - start), answer);
    start = end + 1;
  }
  if (binary && answer.binary) *binary = *answer.binary;
  // A verdict that came before the deadline stands, even if the process then hung on its way out.
  if (answer.verdict) return *answer.verdict;
  if (answer.error && !run.timed_out) {
    if (answer.spec_error) throw std::invalid_argument(*answer.error);
    // Never a quiet validation on fewer devices: each one asked for validates the kernel, or nothing does.
    if (answer.device_error)
      throw std::runtime_error(
          (device ? "validation device " + std::to_string(device->index) + " (" + device->name + ")"
                  : std::string("the validation device")) +
          " cannot be created: " + *answer.error +
          ". Repair or install its driver, or choose the validation devices with KERNELGEN_VALIDATION_DEVICES "
          "(`kernelgen devices` lists them)");
    throw std::runtime_error("the validation worker could not validate anything: " + *answer.error);
  }

  Verdict verdict;
  verdict.base_seed = options.base_seed;
  verdict.device = answer.device;
  if (answer.subgroup_size) verdict.subgroup_sizes = {answer.subgroup_size};
  verdict.status = Status::RUNTIME_ERROR;
  verdict.log = run.err_tail;
  if (run.timed_out) {
    verdict.status = Status::TIMEOUT;
    verdict.reason = "did not finish within " + seconds_text(timeout_s) +
                     " s; an infinite loop or a far too slow kernel";
  } else if (WIFSIGNALED(run.wait_status)) {
    verdict.reason = "the validation process died of " + describe_signal(WTERMSIG(run.wait_status)) +
                     (answer.binary ? " while running the kernel; it crashed the driver or lost the device"
                                    : " before the kernel ran");
  } else {
    const int code = WIFEXITED(run.wait_status) ? WEXITSTATUS(run.wait_status) : -1;
    verdict.reason = "the validation process exited with code " + std::to_string(code) + " without a verdict" +
                     (run.err_tail.empty() ? "" : "; its stderr ends with the log below");
  }
  return verdict;
}

}  // namespace

Verdict evaluate_isolated(const IsolationSettings& settings, const OpSpec& spec, const std::string& glsl,
                          const ValidationOptions& options, KernelBinary* binary) {
  const std::filesystem::path tool = settings.tool.empty() ? own_executable() : settings.tool;
  if (::access(tool.c_str(), X_OK) != 0)
    throw std::runtime_error("the validation worker " + tool.string() + " cannot be run: " + std::strerror(errno) +
                             "; it is the kernelgen tool (`kernelgen validate-worker`)");
  if (settings.devices.empty())
    return evaluate_on_worker(settings, tool, spec, glsl, options, nullptr, binary);

  // The protocol these devices give, with the layer where the workers find it as this process does.
  const std::vector<std::string> reduced = validation_protocol_here(settings.devices).missing;
  std::optional<Verdict> first;
  std::vector<std::string> passed_on;
  std::vector<uint32_t> subgroup_sizes;
  for (size_t d = 0; d < settings.devices.size(); ++d) {
    const DeviceInfo& device = settings.devices[d];
    // The first pass at the device's own subgroup size; the others (later_passes) at the other sizes it has.
    std::vector<SubgroupPass> passes = {{}};
    for (size_t p = 0; p < passes.size(); ++p) {
      const SubgroupPass pass = passes[p];
      ValidationOptions on_this = options;
      if (d > 0 || p > 0) {  // timed, and checked at the timed size, on the first device at its own size only
        on_this.timing_runs = 0;
        on_this.check_timed_size = false;
      }
      // Each pass after the first: the declared sizes, two cases, no stress runs (4 wide, lavapipe runs at
      // half its speed; docs/validation.md gives the costs).
      if (p > 0) {
        on_this.declared_sizes_two_cases = true;
        on_this.stress_runs = 0;
      }
      on_this.required_subgroup_size = pass.required_size;
      KernelBinary compiled;
      Verdict verdict =
          evaluate_on_worker(settings, tool, spec, glsl, on_this, &device, &compiled, pass.environment);
      if (binary && d == 0 && p == 0) *binary = compiled;
      for (uint32_t size : verdict.subgroup_sizes)
        if (std::find(subgroup_sizes.begin(), subgroup_sizes.end(), size) == subgroup_sizes.end())
          subgroup_sizes.push_back(size);
      if (!verdict.passed()) {
        if (verdict.device.empty()) verdict.device = device.name;
        if (p > 0)
          verdict.reason =
              "on " + verdict.device + " at subgroup size " +
              (verdict.subgroup_sizes.empty() ? "?" : std::to_string(verdict.subgroup_sizes.back())) + " (" +
              pass.what + "): " + verdict.reason;
        else if (settings.devices.size() > 1)
          verdict.reason = "on " + verdict.device + ": " + verdict.reason;
        verdict.devices = passed_on;
        verdict.subgroup_sizes = subgroup_sizes;
        verdict.reduced = reduced;
        return verdict;
      }
      if (p == 0) {
        passed_on.push_back(verdict.device.empty() ? device.name : verdict.device);
        for (SubgroupPass& later : later_passes(device, compiled.spirv)) passes.push_back(std::move(later));
      }
      if (!first) first = std::move(verdict);
    }
  }
  first->devices = passed_on;
  first->subgroup_sizes = subgroup_sizes;
  first->reduced = reduced;
  return *first;
}

namespace {

// The worker's answers go to the stdout it was started with; its fd 1 then points at stderr, so whatever a
// driver or library prints cannot be mistaken for an answer.
class AnswerChannel {
 public:
  AnswerChannel() : fd_(::dup(1)) { ::dup2(2, 1); }
  ~AnswerChannel() { ::close(fd_); }
  void send(const json& message) {
    const std::string line = message.dump() + "\n";
    for (size_t written = 0; written < line.size();) {
      const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) std::_Exit(4);  // the parent is gone
      written += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

}  // namespace

namespace {

// The worker's fault hook: KERNELGEN_TEST_WORKER_FAULT=device_lost, out_of_memory or timing.
int test_fault_from_environment() {
  const char* hook = std::getenv("KERNELGEN_TEST_WORKER_FAULT");
  if (!hook || !*hook) return 0;
  if (std::strcmp(hook, "device_lost") == 0) return VK_ERROR_DEVICE_LOST;
  if (std::strcmp(hook, "out_of_memory") == 0) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  if (std::strcmp(hook, "timing") == 0) return kTimingFault;
  throw std::runtime_error(std::string("KERNELGEN_TEST_WORKER_FAULT='") + hook +
                           "': expected device_lost, out_of_memory or timing");
}

}  // namespace

int run_validation_worker(const std::filesystem::path& reference_module) {
  // A worker whose parent died (killed by a build that was interrupted) must not spin on a kernel forever.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  AnswerChannel channel;
  try {
    const json request = json::parse(std::string(std::istreambuf_iterator<char>(std::cin), {}));
    if (const char* hook = std::getenv("KERNELGEN_TEST_WORKER_ABORT"); hook && std::strcmp(hook, "1") == 0)
      std::abort();
    const OpSpec spec = parse_op_spec(request.at("spec"));
    ValidationOptions options{request.at("base_seed").get<uint64_t>(), request.at("timing_runs").get<int>(),
                              request.value("stress_runs", kDefaultStressRuns)};
    options.test_fault = test_fault_from_environment();
    options.check_timed_size = request.value("check_timed_size", false);
    options.declared_sizes_two_cases = request.value("declared_sizes_two_cases", false);
    options.required_subgroup_size = request.value("required_subgroup_size", 0u);
    const ReferenceFunction reference = load_reference(reference_module, spec.name);
    DeviceOptions device_options = validation_device_options();
    if (request.contains("device")) device_options.selector = std::to_string(request.at("device").get<uint32_t>());
    std::optional<Device> opened;
    try {
      opened.emplace(device_options);
    } catch (const std::exception& error) {
      channel.send({{"error", error.what()}, {"device_error", true}});
      return 3;
    }
    Device& device = *opened;
    const uint32_t subgroup_size =
        options.required_subgroup_size ? options.required_subgroup_size : device.info().subgroup_size;
    channel.send({{"device", device.info().name}, {"subgroup_size", subgroup_size}});
    if (auto unsupported = unsupported_on(spec, device.info())) {
      channel.send({{"error", *unsupported}});
      return 3;
    }
    auto compiled = compile_candidate(spec, request.at("glsl").get<std::string>());
    if (auto* rejected = std::get_if<Verdict>(&compiled)) {
      rejected->base_seed = options.base_seed;
      rejected->device = device.info().name;
      rejected->subgroup_sizes = {subgroup_size};
      channel.send({{"verdict", *rejected}});
      return 0;
    }
    const KernelBinary& kernel = std::get<KernelBinary>(compiled);
    channel.send({{"binary", {{"spirv", kernel.spirv}, {"grid", kernel.grid.text()}}}});
    channel.send({{"verdict", validate_kernel(device, spec, reference, kernel, options)}});
    return 0;
  } catch (const std::invalid_argument& error) {
    channel.send({{"error", error.what()}, {"spec_error", true}});
  } catch (const std::exception& error) {
    channel.send({{"error", error.what()}});
  }
  return 3;
}

}  // namespace kernelgen
