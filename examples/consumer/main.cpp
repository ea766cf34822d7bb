// The consumer's application: runs the kernel checked in for scale_add (y = 2 * x + b) the two ways a
// generated wrapper offers, and rowsum at sizes chosen per call, and checks the results on the CPU.
#include <kernelgen/ops/rowsum.hpp>
#include <kernelgen/ops/scale_add.hpp>

#include <cstdio>
#include <vector>

namespace {

using ScaleAdd = kernelgen::ops::scale_add;

// Elements of `y` that differ from 2 * x + b. Exact: doubling is exact in f32, so the sum rounds once.
std::size_t mismatches(const std::vector<float>& x, const std::vector<float>& b, const std::vector<float>& y) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < y.size(); ++i) wrong += y[i] != 2.0f * x[i] + b[i];
  return wrong;
}

// kernelgen owns the device: upload, call the op, download.
std::vector<float> run_with_the_wrapper(kernelgen::Device& device, const std::vector<float>& x,
                                        const std::vector<float>& b) {
  kernelgen::Buffer x_buffer(device, ScaleAdd::x_bytes);
  kernelgen::Buffer b_buffer(device, ScaleAdd::b_bytes);
  kernelgen::Buffer y_buffer(device, ScaleAdd::y_bytes);
  x_buffer.upload(std::span<const float>(x));
  b_buffer.upload(std::span<const float>(b));

  ScaleAdd scale_add(device);
  scale_add(x_buffer, b_buffer, y_buffer);
  return y_buffer.download<float>();
}

// An engine with its own VkDevice, command buffers and VkBuffers records the checked-in kernel itself. The
// kernelgen Device here only stands in for such an engine's objects.
std::vector<float> run_in_my_command_buffer(kernelgen::Device& engine, const std::vector<float>& x,
                                            const std::vector<float>& b) {
  kernelgen::Buffer x_buffer(engine, ScaleAdd::x_bytes);
  kernelgen::Buffer b_buffer(engine, ScaleAdd::b_bytes);
  kernelgen::Buffer y_buffer(engine, ScaleAdd::y_bytes);
  x_buffer.upload(std::span<const float>(x));
  b_buffer.upload(std::span<const float>(b));

  const VkDevice device = engine.vk_device();
  kernelgen::Kernel kernel(device, ScaleAdd::spirv(), 3);  // bindings: x, b, y

  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = engine.vk_command_pool();
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  vkAllocateCommandBuffers(device, &allocate, &command_buffer);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(command_buffer, &begin);

  const VkBuffer buffers[] = {x_buffer.vk_buffer(), b_buffer.vk_buffer(), y_buffer.vk_buffer()};
  // The hold keeps the descriptor set this dispatch binds as it is until the work below has finished.
  const kernelgen::DescriptorSetHold hold = kernel.record(command_buffer, buffers, ScaleAdd::grid());
  // The caller places the barriers: here, the shader's writes before anything reads y.
  VkMemoryBarrier written{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  written.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  written.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &written, 0, nullptr, 0,
                       nullptr);
  vkEndCommandBuffer(command_buffer);

  engine.submit_and_wait(command_buffer);
  vkFreeCommandBuffers(device, engine.vk_command_pool(), 1, &command_buffer);
  return y_buffer.download<float>();
}

using RowSum = kernelgen::ops::rowsum;

// rowsum at a number of rows known only at run time: the sizes come with each call. Rows of ones sum to 300.
std::size_t rowsum_mismatches(kernelgen::Device& device, uint32_t rows) {
  const RowSum::Dims dims{rows};
  kernelgen::Buffer x(device, RowSum::x_bytes(dims));
  kernelgen::Buffer y(device, RowSum::y_bytes(dims));
  const std::vector<float> ones(RowSum::x_elements(dims), 1.0f);
  x.upload(std::span<const float>(ones));
  RowSum rowsum(device);
  rowsum(dims, x, y);
  std::size_t wrong = 0;
  for (float sum : y.download<float>()) wrong += sum != 300.0f;
  return wrong;
}

}  // namespace

int main() {
  std::vector<float> x(ScaleAdd::x_elements), b(ScaleAdd::b_elements);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.25f * static_cast<float>(i) - 100.0f;
    b[i] = 1.0f - 0.5f * static_cast<float>(i);
  }

  kernelgen::Device device;
  std::printf("scale_add: kernel by %s, on %s\n", ScaleAdd::author(), device.info().name.c_str());
  const std::size_t wrapper_wrong = mismatches(x, b, run_with_the_wrapper(device, x, b));
  const std::size_t recorded_wrong = mismatches(x, b, run_in_my_command_buffer(device, x, b));
  std::printf("scale_add through the wrapper: %zu of %zu elements wrong\n", wrapper_wrong, x.size());
  std::printf("scale_add recorded into an own command buffer: %zu of %zu elements wrong\n", recorded_wrong,
              x.size());
  std::size_t rowsum_wrong = 0;
  for (uint32_t rows : {3u, 1000u}) {
    const std::size_t wrong = rowsum_mismatches(device, rows);
    std::printf("rowsum of %u rows: %zu rows wrong\n", rows, wrong);
    rowsum_wrong += wrong;
  }
  return wrapper_wrong == 0 && recorded_wrong == 0 && rowsum_wrong == 0 ? 0 : 1;
}
