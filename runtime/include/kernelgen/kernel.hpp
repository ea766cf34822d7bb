#pragma once
#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernelgen/grid.hpp"

namespace kernelgen {

class Device;
class BufferWatchers;
class DescriptorSetCache;

// How many descriptor sets a Kernel keeps at most: one per distinct binding (buffer list, ranges and
// offsets), the least recently used given up first when a new one needs room, so a caller that binds ever new
// ranges (a KV cache appended a token at a time) does not grow the cache without limit. A set still held
// (DescriptorSetHold) is never given up; the cache outgrows the capacity only by such sets, and shrinks back
// once they are let go.
inline constexpr std::size_t kDescriptorSetCacheCapacity = 1024;

// What Kernel::record returns: while it is alive, the kernel's cache neither frees nor rewrites the
// descriptor set that dispatch bound (unless a buffer it names dies or is forgotten). A Sequence keeps the
// holds of its recording until it is reset or destroyed; an engine keeps each until the command buffer that
// bound it has finished, or records again after kDescriptorSetCacheCapacity other bindings of the kernel.
using DescriptorSetHold = std::shared_ptr<const void>;

// A compute pipeline made from SPIR-V words whose interface is the kernel contract's: descriptor set 0,
// bindings 0..binding_count-1, all storage buffers, and for an op with symbolic dims one uint push constant per
// dim (dim_count of them, in the op's dim order).
//
// Two ways to use one: through a kernelgen Device and Sequence, or recorded straight into a command buffer of
// an engine that owns its own VkDevice and VkBuffers (the second constructor and record()). Thread-safe: one
// Kernel may record into several command buffers on several threads at once.
// One statistic the driver reports of a compiled kernel (VK_KHR_pipeline_executable_properties): the executable
// it belongs to, the statistic's name as the driver gives it (NVIDIA's register count, say) and its value as text.
struct PipelineStatistic {
  std::string executable;
  std::string name;
  std::string value;
};

class Kernel {
 public:
  // The pipeline goes through the Device's VkPipelineCache (DeviceOptions::pipeline_cache_path).
  // `required_subgroup_size`: 0 for the subgroup size the device picks; else the kernel runs at exactly that
  // size (VkPipelineShaderStageRequiredSubgroupSizeCreateInfo), which must be one the device allows for it,
  // else std::invalid_argument naming the size and the device's range (kernelgen/subgroup_size.hpp).
  Kernel(const Device& device, std::span<const uint32_t> spirv, uint32_t binding_count,
         uint32_t dim_count = 0, uint32_t required_subgroup_size = 0);
  // An engine's device, and optionally its pipeline cache.
  Kernel(VkDevice device, std::span<const uint32_t> spirv, uint32_t binding_count, uint32_t dim_count = 0,
         VkPipelineCache pipeline_cache = VK_NULL_HANDLE);
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  uint32_t binding_count() const { return binding_count_; }
  VkDevice vk_device() const { return device_; }
  uint32_t dim_count() const { return dim_count_; }
  // Whether the kernel may write binding i (its SPIR-V does not declare it readonly).
  bool writes(uint32_t binding) const { return writes_.at(binding); }

  // Binds the buffers (binding i = buffers[i], from `offsets[i]` or 0 when `offsets` is empty: `ranges[i]`
  // bytes of it, or the rest of the buffer when `ranges` is empty), pushes the dims (dim_count() values) and
  // dispatches. A kernel's `.length()` of a binding counts the bound range. Descriptor sets are cached per
  // distinct buffer list, ranges and offsets (at most kDescriptorSetCacheCapacity, least recently used given
  // up first), so calling again with the same buffers allocates nothing; `identity` (one Buffer::id() per
  // buffer) keys that cache when given, since a VkBuffer handle may be recycled for a new buffer once its
  // buffer dies. A kernel made on a kernelgen Device frees the sets naming a kernelgen Buffer when it dies;
  // an engine (no identity) calls forget() before it destroys a VkBuffer it recorded. The caller places
  // barriers around it. Returns the hold that keeps the set as it is until the command buffer has finished
  // (DescriptorSetHold).
  DescriptorSetHold record(VkCommandBuffer command_buffer, std::span<const VkBuffer> buffers, Grid grid,
                           std::span<const uint32_t> dims = {}, std::span<const uint64_t> identity = {},
                           std::span<const uint64_t> ranges = {}, std::span<const uint64_t> offsets = {});

  // Frees the descriptor sets whose buffer lists hold the buffer with this Buffer::id() (Device calls it).
  void forget_buffer(uint64_t id);
  // Frees the descriptor sets recorded without identity whose buffer lists hold this VkBuffer: for an engine,
  // before it destroys the buffer (and after the command buffers that used the sets have finished).
  void forget(VkBuffer buffer);
  // How many descriptor sets are cached now: at most kDescriptorSetCacheCapacity, besides sets still held.
  std::size_t cached_descriptor_sets() const;
  // The driver's statistics of the compiled pipeline, where the kernel was made on a Device that enabled
  // VK_KHR_pipeline_executable_properties (DeviceFeatures::pipeline_executable_info); empty elsewhere.
  std::vector<PipelineStatistic> statistics() const;

 private:
  Kernel(VkDevice device, std::span<const uint32_t> spirv, uint32_t binding_count, uint32_t dim_count,
         VkPipelineCache pipeline_cache, bool capture_statistics, uint32_t required_subgroup_size);
  void create(std::span<const uint32_t> spirv, VkPipelineCache pipeline_cache,
              uint32_t required_subgroup_size);
  void release();

  std::shared_ptr<BufferWatchers> watchers_;  // its Device's; null for an engine's VkDevice
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t binding_count_ = 0;
  uint32_t dim_count_ = 0;
  bool capture_statistics_ = false;  // the pipeline was made with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR
  std::vector<bool> writes_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::unique_ptr<DescriptorSetCache> sets_;  // runtime/src/descriptor_set_cache.hpp
};

}  // namespace kernelgen
