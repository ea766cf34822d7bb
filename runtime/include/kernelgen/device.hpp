#pragma once
#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernelgen/submission.hpp"

namespace kernelgen {

class Kernel;
class Sequence;
struct DeviceInternals;

// The sequences and kernels made on a Device hear of every Buffer of it that dies. First the sequences: one
// whose submission still runs with the buffer waits for it, and one that recorded the buffer refuses to be
// submitted again. Then the kernels free the descriptor sets naming it, so their caches stay as large as the
// live buffer lists (a Buffer's id is never reused, so a set cached for a dead buffer is never met again
// anyway). Shared by the Device, its kernels and sequences, so any may go first; thread-safe.
class BufferWatchers {
 public:
  void watch(Kernel* kernel);
  void unwatch(const Kernel* kernel);
  void watch(Sequence* sequence);
  void unwatch(const Sequence* sequence);
  void buffer_died(uint64_t id);

 private:
  std::mutex mutex_;
  std::vector<Sequence*> sequences_;
  std::vector<Kernel*> kernels_;
};

struct DeviceOptions {
  // Index ("1") or case-insensitive name substring ("llvmpipe", "H100"). Empty: $KERNELGEN_DEVICE, else the
  // device ctest gave the running test ($CTEST_RESOURCE_GROUP_0_GPU, see README "GPUs in ctest"), else the
  // first discrete GPU, else integrated, else virtual, else CPU.
  std::string selector;
  // Out-of-bounds accesses are discarded or return zero instead of being undefined. On while validating
  // untrusted kernels.
  bool robust_buffer_access = false;
  // Enable VK_LAYER_KHRONOS_validation and report its messages on stderr. Also on when
  // $KERNELGEN_VK_VALIDATION=1.
  bool validation = false;
  // GPU-assisted validation: the validation layer instruments every shader so that an access outside the range
  // bound to a binding is skipped and reported (take_kernel_faults()) instead of performed. Needs the layer
  // (validation_layer_available()); implies `validation`. What the validator runs untrusted kernels under.
  bool gpu_assisted_validation = false;
  // How long waiting for the GPU polls before it sleeps in the driver, in microseconds: polling notices the
  // end of a short kernel at once, a driver's sleep tens of microseconds later. -1: $KERNELGEN_SPIN_WAIT_US,
  // else 1000 on a GPU and 0 on a CPU device (whose kernels run on the very cores a poll would take).
  int spin_wait_us = -1;
  // A file to keep compiled pipelines in between runs (a VkPipelineCache): read when the device opens,
  // written when it closes. Empty: $KERNELGEN_PIPELINE_CACHE, else the cache lives only as long as the Device.
  std::string pipeline_cache_path;
  // Upload and download through staging memory even where device memory is host-visible (lavapipe,
  // integrated GPUs), as on a discrete GPU: for testing that path on any machine. Also on when
  // $KERNELGEN_ALWAYS_STAGE=1.
  bool always_stage = false;
};

// Optional device features kernels may use; each is enabled on the logical device when the physical device
// has it.
struct DeviceFeatures {
  // VkPhysicalDevice16BitStorageFeatures::storageBuffer16BitAccess: f16 tensors.
  bool storage_buffer_16bit = false;
  // VkPhysicalDevice8BitStorageFeatures::storageBuffer8BitAccess: i8/u8 tensors.
  bool storage_buffer_8bit = false;
  // VkPhysicalDeviceShaderFloat16Int8Features::shaderFloat16 and ::shaderInt8: f16 and i8/u8 arithmetic.
  bool shader_float16 = false;
  bool shader_int8 = false;
  // VkPhysicalDeviceFeatures::shaderInt16, ::shaderInt64 and ::shaderFloat64.
  bool shader_int16 = false;
  bool shader_int64 = false;
  bool shader_float64 = false;
  // VkPhysicalDeviceVulkan12Features::vulkanMemoryModel, which GL_NV_cooperative_matrix kernels declare, and
  // VkPhysicalDeviceCooperativeMatrixFeaturesNV::cooperativeMatrix (VK_NV_cooperative_matrix): tensor cores.
  bool vulkan_memory_model = false;
  // VkPhysicalDeviceVulkan12Features::vulkanMemoryModelDeviceScope: barriers and atomics of Device scope
  // under that model, which a module declaring it may use.
  bool vulkan_memory_model_device_scope = false;
  bool cooperative_matrix_nv = false;
  // VkPhysicalDeviceCooperativeMatrixFeaturesKHR::cooperativeMatrix (VK_KHR_cooperative_matrix): every
  // vendor's matrix units through GL_KHR_cooperative_matrix, and what GL_NV_cooperative_matrix2 builds on.
  bool cooperative_matrix_khr = false;
  // VkPhysicalDeviceCooperativeMatrix2FeaturesNV (VK_NV_cooperative_matrix2), each feature by its name there:
  // matrices of workgroup scope and of other sizes than the device lists, reductions, conversions,
  // per-element operations, tensor-addressed loads and stores, and block loads.
  bool cooperative_matrix_workgroup_scope = false;
  bool cooperative_matrix_flexible_dimensions = false;
  bool cooperative_matrix_reductions = false;
  bool cooperative_matrix_conversions = false;
  bool cooperative_matrix_per_element_operations = false;
  bool cooperative_matrix_tensor_addressing = false;
  bool cooperative_matrix_block_loads = false;
  // VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR::pipelineExecutableInfo: the driver's statistics of
  // a compiled kernel (Kernel::statistics(): registers, shared memory... as the driver names them).
  bool pipeline_executable_info = false;
  // VkPhysicalDeviceSubgroupSizeControlFeatures (VK_EXT_subgroup_size_control, core in Vulkan 1.3):
  // subgroupSizeControl, which lets a Kernel be made to run at a subgroup size of the device's range
  // (DeviceInfo::min_subgroup_size to max_subgroup_size), and computeFullSubgroups.
  bool subgroup_size_control = false;
  bool compute_full_subgroups = false;
};

// A shape VK_KHR_cooperative_matrix lists for subgroup scope
// (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR): A (m x k) times B (k x n) plus C (m x n) gives the
// result (m x n). Component types as "float16", "float32", "sint8", "uint32"... ("other" for types beyond
// these).
struct CooperativeMatrixShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string a, b, c, result;
};

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;
  // VkPhysicalDeviceIDProperties::deviceUUID as 8-4-4-4-12 lowercase hex digits; on NVIDIA, the UUID that
  // nvidia-smi and CUDA give the same GPU after "GPU-". Tells two GPUs of one model apart.
  std::string uuid;
  uint32_t vendor_id = 0;
  uint32_t api_version = 0;
  uint32_t subgroup_size = 0;
  // VkPhysicalDeviceSubgroupProperties::supportedOperations (VkSubgroupFeatureFlags) when compute shaders have
  // subgroup operations, else 0.
  uint32_t subgroup_operations = 0;
  // VkPhysicalDeviceSubgroupSizeControlProperties (VK_EXT_subgroup_size_control, core in Vulkan 1.3): the
  // subgroup sizes a kernel may be made to run at, the shader stages that allow it (VkShaderStageFlags) and
  // how many subgroups a workgroup may have (kernelgen/subgroup_size.hpp). All 0 without the extension.
  // subgroup_size is the size kernels run at when they require none.
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  uint32_t required_subgroup_size_stages = 0;
  uint32_t max_compute_workgroup_subgroups = 0;
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_size{};
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_shared_memory_bytes = 0;
  uint64_t max_storage_buffer_range = 0;
  // minStorageBufferOffsetAlignment: a buffer bound from an offset (BufferSlice) starts at a multiple of it.
  uint64_t min_storage_buffer_offset_alignment = 0;
  double timestamp_period_ns = 0;  // 0 when the compute queue has no timestamps
  uint32_t timestamp_valid_bits = 0;  // the compute queue's timestampValidBits: a timestamp wraps at 2^bits
  std::vector<std::string> extensions;  // sorted
  DeviceFeatures features;
  // Empty without VK_KHR_cooperative_matrix: a KHR matrix of subgroup scope a kernel declares must be one of
  // these.
  std::vector<CooperativeMatrixShape> cooperative_matrix_shapes;
};

// A CPU implementation of Vulkan (lavapipe): ops are timed there at CPU_BENCH_DIMS, not at a GPU's BENCH_DIMS.
inline bool is_cpu_device(const DeviceInfo& device) { return device.type == "cpu"; }

// Whether the device has the extension (VK_NV_cooperative_matrix, say), enabled or not.
bool has_extension(const DeviceInfo& device, const std::string& name);

// Whether a selector names this device: its index ("1"), its UUID with or without nvidia-smi's "GPU-" prefix
// (case-insensitive), or a case-insensitive part of its name ("llvmpipe").
bool matches_selector(const DeviceInfo& device, const std::string& selector);

// A Vulkan instance, one physical device and a logical device with one compute queue. Thread-safe: buffers,
// kernels and sequences may be made, used and destroyed on several threads at once (each Sequence by one thread
// at a time). See docs/runtime.md.
class Device {
 public:
  explicit Device(const DeviceOptions& options = {});
  ~Device();
  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Every physical device the loader sees, in loader order (the order KERNELGEN_DEVICE indexes).
  static std::vector<DeviceInfo> list();
  // The device Device(options) would open, described without opening it: for a process that only needs to
  // know the device (the generator's prompts) while candidates run in child processes.
  static DeviceInfo describe_selected(const DeviceOptions& options = {});

  // Whether VK_LAYER_KHRONOS_validation is installed, so validation can be enabled.
  static bool validation_layer_available();

  const DeviceInfo& info() const;
  bool robust_buffer_access() const;
  bool gpu_assisted_validation() const;
  bool always_stage() const;

  // What GPU-assisted validation reported of the kernels' own accesses since the last call, one layer message
  // each (a shader's out-of-bounds access: "Descriptor index 0 access out of bounds. ... Shader Instruction
  // Index = 90 ..."). Empty without gpu_assisted_validation. Messages about the API's use are not faults of a
  // kernel: they go to stderr as "kernelgen: Vulkan validation error: ...".
  std::vector<std::string> take_kernel_faults();
  // The validation layer's other errors since the last call (they also go to stderr): a shader module or
  // pipeline the layer found invalid, for example one declaring a capability that was not enabled.
  std::vector<std::string> take_validation_errors();

  VkInstance vk_instance() const;
  VkPhysicalDevice vk_physical_device() const;
  VkDevice vk_device() const;
  // The compute queue. Submit through submit() below: it orders the work after pending uploads and holds the
  // queue, which Vulkan requires to be used by one thread at a time.
  VkQueue vk_queue() const;
  uint32_t queue_family() const;
  // A command pool for the caller's own command buffers (kernelgen's objects have pools of their own). Like any
  // VkCommandPool it must be used by one thread at a time.
  VkCommandPool vk_command_pool() const;
  uint32_t spin_wait_us() const;

  // Index of a memory type allowed by type_bits with all the required flags, or -1.
  int memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const;

  // Submits a command buffer after the uploads still waiting for a submission (Buffer::upload).
  Submission submit(VkCommandBuffer command_buffer) const;
  // The same, and waits for it.
  void submit_and_wait(VkCommandBuffer command_buffer) const;
  // Submits the uploads still waiting, if any, and waits for them: before work is submitted to vk_queue()
  // some other way.
  void flush_uploads() const;

  // The kernels made on this device, told of every Buffer of it that dies (see BufferWatchers).
  const std::shared_ptr<BufferWatchers>& buffer_watchers() const;

 private:
  friend struct DeviceInternals;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kernelgen
