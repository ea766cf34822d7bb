#pragma once
#include <vulkan/vulkan_core.h>

namespace kernelgen {

// The stages kernelgen's own work runs in (dispatches, fills, copies), their writes, and all their accesses.
inline constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
inline constexpr VkAccessFlags kWorkWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
inline constexpr VkAccessFlags kWorkAccess =
    kWorkWrites | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;

// A global memory barrier: writes of `src_access` in `src_stage` become visible to `dst_access` in `dst_stage`.
inline void memory_barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                           VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(command_buffer, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace kernelgen
