#pragma once
#include <vulkan/vulkan_core.h>

#include <functional>

namespace kernelgen {

class Device;

// Records commands into a fresh command buffer, submits it and waits.
void run_one_shot(const Device& device, const std::function<void(VkCommandBuffer)>& record);

}  // namespace kernelgen

namespace kernelgen {

// A global memory barrier: writes of `src_access` in `src_stage` become visible to `dst_access` in `dst_stage`.
void memory_barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace kernelgen
