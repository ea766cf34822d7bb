#include "kernelgen/kernel.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "descriptor_set_cache.hpp"
#include "device_internals.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/spirv_interface.hpp"
#include "kernelgen/subgroup_size.hpp"
#include "vk_check.hpp"

namespace kernelgen {

namespace {

// The runtime trusts only what the contract promises: bindings 0..n-1 of set 0, storage buffers. Returns
// which bindings the kernel may write.
std::vector<bool> check_contract(std::span<const uint32_t> spirv, uint32_t binding_count) {
  std::string error;
  const auto interface = reflect_spirv(spirv, &error);
  if (!interface) throw std::invalid_argument("kernelgen: not a SPIR-V module: " + error);
  if (!interface->has_compute_main)
    throw std::invalid_argument("kernelgen: the SPIR-V has no compute entry point named main");
  // A binding may be declared more than once, as views of different element types of one buffer.
  std::vector<bool> declared(binding_count, false), writes(binding_count, false);
  for (const SpirvBinding& binding : interface->bindings) {
    if (binding.set != 0 || binding.binding >= binding_count || !binding.buffer_block)
      throw std::invalid_argument("kernelgen: the SPIR-V declares (set " + std::to_string(binding.set) +
                                  ", binding " + std::to_string(binding.binding) + "), the kernel expects storage " +
                                  "buffers at set 0, bindings 0.." + std::to_string(binding_count - 1));
    declared[binding.binding] = true;
    if (!binding.readonly) writes[binding.binding] = true;
  }
  for (uint32_t i = 0; i < binding_count; ++i)
    if (!declared[i])
      throw std::invalid_argument("kernelgen: the SPIR-V declares no binding " + std::to_string(i) +
                                  "; the kernel expects storage buffers at set 0, bindings 0.." +
                                  std::to_string(binding_count - 1));
  return writes;
}

// `size` where the device can run this kernel at it (or 0: none required); else throws why not. Words that
// are not SPIR-V pass through, for check_contract to say so.
uint32_t allowed_subgroup_size(const DeviceInfo& device, std::span<const uint32_t> spirv, uint32_t size) {
  if (size == 0) return 0;
  const auto interface = reflect_spirv(spirv);
  if (!interface) return size;
  const uint32_t invocations = interface->local_size[0] * interface->local_size[1] * interface->local_size[2];
  if (auto problem = required_subgroup_size_problem(device, size, invocations))
    throw std::invalid_argument(*problem);
  return size;
}

}  // namespace

Kernel::Kernel(const Device& device, std::span<const uint32_t> spirv, uint32_t binding_count,
               uint32_t dim_count, uint32_t required_subgroup_size)
    : Kernel(device.vk_device(), spirv, binding_count, dim_count, DeviceInternals::pipeline_cache(device),
             device.info().features.pipeline_executable_info,
             allowed_subgroup_size(device.info(), spirv, required_subgroup_size)) {
  watchers_ = device.buffer_watchers();
  watchers_->watch(this);
}

Kernel::Kernel(VkDevice device, std::span<const uint32_t> spirv, uint32_t binding_count, uint32_t dim_count,
               VkPipelineCache pipeline_cache)
    : Kernel(device, spirv, binding_count, dim_count, pipeline_cache, false, 0) {}

Kernel::Kernel(VkDevice device, std::span<const uint32_t> spirv, uint32_t binding_count, uint32_t dim_count,
               VkPipelineCache pipeline_cache, bool capture_statistics, uint32_t required_subgroup_size)
    : device_(device),
      binding_count_(binding_count),
      dim_count_(dim_count),
      capture_statistics_(capture_statistics) {
  writes_ = check_contract(spirv, binding_count);
  try {
    create(spirv, pipeline_cache, required_subgroup_size);
  } catch (...) {
    release();
    throw;
  }
}

void Kernel::create(std::span<const uint32_t> spirv, VkPipelineCache pipeline_cache,
                    uint32_t required_subgroup_size) {
  VkShaderModuleCreateInfo module{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  module.codeSize = spirv.size_bytes();
  module.pCode = spirv.data();
  vk_check(vkCreateShaderModule(device_, &module, nullptr, &module_), "creating a shader module");

  std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count_);
  for (uint32_t i = 0; i < binding_count_; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set_layout{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_layout.bindingCount = binding_count_;
  set_layout.pBindings = bindings.data();
  vk_check(vkCreateDescriptorSetLayout(device_, &set_layout, nullptr, &set_layout_),
           "creating a descriptor set layout");
  sets_ = std::make_unique<DescriptorSetCache>(device_, set_layout_, binding_count_);

  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &set_layout_;
  const VkPushConstantRange dims{VK_SHADER_STAGE_COMPUTE_BIT, 0, dim_count_ * 4};
  if (dim_count_ > 0) {
    layout.pushConstantRangeCount = 1;
    layout.pPushConstantRanges = &dims;
  }
  vk_check(vkCreatePipelineLayout(device_, &layout, nullptr, &pipeline_layout_), "creating a pipeline layout");

  VkComputePipelineCreateInfo pipeline{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = module_;
  pipeline.stage.pName = "main";
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup_size{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  subgroup_size.requiredSubgroupSize = required_subgroup_size;
  if (required_subgroup_size > 0) pipeline.stage.pNext = &subgroup_size;
  pipeline.layout = pipeline_layout_;
  if (capture_statistics_) pipeline.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  vk_check(vkCreateComputePipelines(device_, pipeline_cache, 1, &pipeline, nullptr, &pipeline_),
           "creating the compute pipeline");
}

Kernel::~Kernel() { release(); }

Kernel::Kernel(Kernel&& other) noexcept
    : watchers_(std::move(other.watchers_)),
      device_(std::exchange(other.device_, VK_NULL_HANDLE)),
      binding_count_(other.binding_count_),
      dim_count_(other.dim_count_),
      capture_statistics_(other.capture_statistics_),
      writes_(std::move(other.writes_)),
      module_(std::exchange(other.module_, VK_NULL_HANDLE)),
      set_layout_(std::exchange(other.set_layout_, VK_NULL_HANDLE)),
      pipeline_layout_(std::exchange(other.pipeline_layout_, VK_NULL_HANDLE)),
      pipeline_(std::exchange(other.pipeline_, VK_NULL_HANDLE)),
      sets_(std::move(other.sets_)) {
  if (watchers_) {
    watchers_->unwatch(&other);
    watchers_->watch(this);
  }
}

Kernel& Kernel::operator=(Kernel&& other) noexcept {
  Kernel moved(std::move(other));
  // Each side watches under its own address again after the swap. A buffer that dies in between leaves a set
  // cached under its id, which no new buffer shares: a set too many, never a wrong one.
  if (watchers_) watchers_->unwatch(this);
  if (moved.watchers_) moved.watchers_->unwatch(&moved);
  std::swap(watchers_, moved.watchers_);
  std::swap(device_, moved.device_);
  std::swap(binding_count_, moved.binding_count_);
  std::swap(dim_count_, moved.dim_count_);
  std::swap(capture_statistics_, moved.capture_statistics_);
  std::swap(writes_, moved.writes_);
  std::swap(module_, moved.module_);
  std::swap(set_layout_, moved.set_layout_);
  std::swap(pipeline_layout_, moved.pipeline_layout_);
  std::swap(pipeline_, moved.pipeline_);
  std::swap(sets_, moved.sets_);
  if (watchers_) watchers_->watch(this);
  if (moved.watchers_) moved.watchers_->watch(&moved);
  return *this;
}

void Kernel::release() {
  if (watchers_) watchers_->unwatch(this);
  watchers_.reset();
  if (!device_) return;
  sets_.reset();
  if (pipeline_) vkDestroyPipeline(device_, pipeline_, nullptr);
  if (pipeline_layout_) vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(device_, module_, nullptr);
  pipeline_ = VK_NULL_HANDLE;
  pipeline_layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
  module_ = VK_NULL_HANDLE;
}

void Kernel::forget_buffer(uint64_t id) {
  if (sets_) sets_->forget(true, id);
}

void Kernel::forget(VkBuffer buffer) {
  if (sets_) sets_->forget(false, reinterpret_cast<uint64_t>(buffer));
}

std::size_t Kernel::cached_descriptor_sets() const {
  return sets_ ? sets_->size() : 0;
}

DescriptorSetHold Kernel::record(VkCommandBuffer command_buffer, std::span<const VkBuffer> buffers, Grid grid,
                                 std::span<const uint32_t> dims, std::span<const uint64_t> identity,
                                 std::span<const uint64_t> ranges, std::span<const uint64_t> offsets) {
  if (buffers.size() != binding_count_)
    throw std::invalid_argument("kernelgen: the kernel takes " + std::to_string(binding_count_) + " buffers, got " +
                                std::to_string(buffers.size()));
  if (dims.size() != dim_count_)
    throw std::invalid_argument("kernelgen: the kernel takes " + std::to_string(dim_count_) + " dims, got " +
                                std::to_string(dims.size()));
  if (!identity.empty() && identity.size() != buffers.size())
    throw std::invalid_argument("kernelgen: one identity per buffer, got " + std::to_string(identity.size()));
  if (!ranges.empty() && ranges.size() != buffers.size())
    throw std::invalid_argument("kernelgen: one range per buffer, got " + std::to_string(ranges.size()));
  if (!offsets.empty() && offsets.size() != buffers.size())
    throw std::invalid_argument("kernelgen: one offset per buffer, got " + std::to_string(offsets.size()));
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i])
      throw std::invalid_argument("kernelgen: buffer " + std::to_string(i) + " is VK_NULL_HANDLE");
    if (!ranges.empty() && ranges[i] == 0)
      throw std::invalid_argument("kernelgen: binding " + std::to_string(i) + " has a range of 0 bytes");
  }
  DescriptorSetCache::Found found = sets_->find(buffers, identity, ranges, offsets);
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &found.set,
                          0, nullptr);
  if (dim_count_ > 0)
    vkCmdPushConstants(command_buffer, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, dim_count_ * 4, dims.data());
  vkCmdDispatch(command_buffer, grid.x, grid.y, grid.z);
  return std::move(found.hold);
}

namespace {

std::string statistic_value(const VkPipelineExecutableStatisticKHR& statistic) {
  switch (statistic.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return statistic.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return std::to_string(statistic.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return std::to_string(statistic.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: {
      char text[32];
      std::snprintf(text, sizeof text, "%.4g", statistic.value.f64);
      return text;
    }
    default:
      return "?";
  }
}

}  // namespace

std::vector<PipelineStatistic> Kernel::statistics() const {
  std::vector<PipelineStatistic> statistics;
  if (!capture_statistics_ || pipeline_ == VK_NULL_HANDLE) return statistics;
  const auto properties_of = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutablePropertiesKHR"));
  const auto statistics_of = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableStatisticsKHR"));
  if (!properties_of || !statistics_of) return statistics;
  VkPipelineInfoKHR pipeline{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipeline.pipeline = pipeline_;
  uint32_t count = 0;
  vk_check(properties_of(device_, &pipeline, &count, nullptr), "counting the pipeline's executables");
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  vk_check(properties_of(device_, &pipeline, &count, executables.data()), "reading the pipeline's executables");
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline_;
    executable.executableIndex = e;
    uint32_t statistic_count = 0;
    vk_check(statistics_of(device_, &executable, &statistic_count, nullptr), "counting a pipeline's statistics");
    std::vector<VkPipelineExecutableStatisticKHR> values(statistic_count,
                                                         {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    vk_check(statistics_of(device_, &executable, &statistic_count, values.data()), "reading a pipeline's statistics");
    for (const auto& value : values)
      statistics.push_back({executables[e].name, value.name, statistic_value(value)});
  }
  return statistics;
}

}  // namespace kernelgen
