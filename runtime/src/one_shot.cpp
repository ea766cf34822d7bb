#include "one_shot.hpp"

#include "kernelgen/device.hpp"
#include "vk_check.hpp"

namespace kernelgen {

void run_one_shot(const Device& device, const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = device.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  vk_check(vkAllocateCommandBuffers(device.vk_device(), &allocate, &command_buffer), "allocating a command buffer");
  struct Free {
    const Device& device;
    VkCommandBuffer command_buffer;
    ~Free() { vkFreeCommandBuffers(device.vk_device(), device.vk_command_pool(), 1, &command_buffer); }
  } free{device, command_buffer};
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(vkBeginCommandBuffer(command_buffer, &begin), "beginning a command buffer");
  record(command_buffer);
  vk_check(vkEndCommandBuffer(command_buffer), "ending a command buffer");
  device.submit_and_wait(command_buffer);
}

}  // namespace kernelgen

namespace kernelgen {

void memory_barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(command_buffer, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace kernelgen
