#pragma once
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace kernelgen {

class Device;

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

// A compute pipeline made from SPIR-V words whose interface is the kernel contract's: descriptor set 0,
// bindings 0..binding_count-1, all storage buffers.
//
// Two ways to use one: through a kernelgen Device and Sequence, or recorded straight into a command buffer of
// an engine that owns its own VkDevice and VkBuffers (the second constructor and record()).
class Kernel {
 public:
  Kernel(const Device& device, std::span<const uint32_t> spirv, uint32_t binding_count);
  Kernel(VkDevice device, std::span<const uint32_t> spirv, uint32_t binding_count);
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  uint32_t binding_count() const { return binding_count_; }

  // Binds the buffers (whole range, binding i = buffers[i]) and dispatches. Descriptor sets are cached per
  // distinct buffer list, so calling again with the same buffers allocates nothing. The caller places
  // barriers around it.
  void record(VkCommandBuffer command_buffer, std::span<const VkBuffer> buffers, Grid grid);

 private:
  void create(std::span<const uint32_t> spirv);
  VkDescriptorSet descriptor_set(std::span<const VkBuffer> buffers);
  void release();

  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t binding_count_ = 0;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> pools_;
  uint32_t sets_in_last_pool_ = 0;
  std::map<std::vector<VkBuffer>, VkDescriptorSet> sets_;
};

}  // namespace kernelgen
