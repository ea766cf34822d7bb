#include "kernelgen/device.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "device_internals.hpp"
#include "device_memory.hpp"
#include "device_selector.hpp"
#include "kernelgen/error.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "submitted_work.hpp"
#include "transfers.hpp"
#include "vk_check.hpp"

namespace kernelgen {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

const char* type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

int type_preference(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

// The validation layer's messages. A fault GPU-assisted validation found in a shader's own accesses is the
// kernel's, kept for the validator; any other message is about kernelgen's use of the API and goes to stderr,
// where CI counts the errors.
struct MessageLog {
  std::mutex mutex;
  std::vector<std::string> kernel_faults;
  std::vector<std::string> errors;
};

bool is_kernel_fault(const char* message) {
  // GPU-assisted validation's reports of an instrumented shader's accesses (VUID-vkCmdDispatch-None-02705/02706
  // and their kin), as opposed to checks of API calls.
  return std::strstr(message, "access out of bounds") != nullptr && std::strstr(message, "Shader Instruction Index");
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user_data) {
  auto* log = static_cast<MessageLog*>(user_data);
  if (is_kernel_fault(data->pMessage)) {
    std::fprintf(stderr, "kernelgen: GPU-assisted validation found a kernel fault: %s\n", data->pMessage);
    const std::lock_guard<std::mutex> lock(log->mutex);
    log->kernel_faults.emplace_back(data->pMessage);
    return VK_FALSE;
  }
  const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  std::fprintf(stderr, "kernelgen: Vulkan validation %s: %s\n", error ? "error" : "warning", data->pMessage);
  if (error) {
    const std::lock_guard<std::mutex> lock(log->mutex);
    log->errors.emplace_back(data->pMessage);
  }
  return VK_FALSE;
}

int compute_queue_family(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  // A compute-only family is usually the async-compute queue; any family with compute works.
  int fallback = -1;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

// Whether the device has VK_EXT_subgroup_size_control's structs: core in Vulkan 1.3, an extension before.
bool has_subgroup_size_control(const DeviceInfo& info) {
  return info.api_version >= VK_API_VERSION_1_3 ||
         has_extension(info, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
}

// The feature structs that hold the optional features kernels use, linked as one pNext chain behind `core`:
// the Vulkan 1.1 and 1.2 aggregates on a 1.2 device, else the KHR structs whose extensions the device lists.
// One chain is filled by vkGetPhysicalDeviceFeatures2 to read what a device has; another, set by hand,
// enables features in vkCreateDevice.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features vulkan11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features vulkan12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16_int8{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative_matrix{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR cooperative_matrix_khr{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV cooperative_matrix2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pipeline_executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  VkPhysicalDeviceSubgroupSizeControlFeatures subgroup_size_control{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  // Where the chain keeps each feature; null when no struct in the chain has it.
  VkBool32* storage_buffer_16bit = nullptr;
  VkBool32* uniform_and_storage_buffer_16bit = nullptr;
  VkBool32* storage_buffer_8bit = nullptr;
  VkBool32* uniform_and_storage_buffer_8bit = nullptr;
  VkBool32* shader_float16 = nullptr;
  VkBool32* shader_int8 = nullptr;
  VkBool32* vulkan_memory_model = nullptr;
  VkBool32* vulkan_memory_model_device_scope = nullptr;
  VkBool32* cooperative_matrix_nv = nullptr;
  VkBool32* cooperative_matrix_khr_flag = nullptr;
  // Cooperative matrix loads and stores that respect robust buffer access, as every other access does while
  // untrusted kernels are validated.
  VkBool32* cooperative_matrix_robust_buffer_access = nullptr;
  VkBool32* cooperative_matrix_workgroup_scope = nullptr;
  VkBool32* cooperative_matrix_flexible_dimensions = nullptr;
  VkBool32* cooperative_matrix_reductions = nullptr;
  VkBool32* cooperative_matrix_conversions = nullptr;
  VkBool32* cooperative_matrix_per_element_operations = nullptr;
  VkBool32* cooperative_matrix_tensor_addressing = nullptr;
  VkBool32* cooperative_matrix_block_loads = nullptr;
  VkBool32* pipeline_executable_info = nullptr;
  VkBool32* subgroup_size_control_flag = nullptr;
  VkBool32* compute_full_subgroups = nullptr;
  // The device extensions the chain's structs need.
  std::vector<const char*> extensions;

  explicit FeatureChain(const DeviceInfo& info) {
    if (has_subgroup_size_control(info)) {
      // Core in Vulkan 1.3, whose aggregate struct is not in the chain; an extension to enable before.
      if (info.api_version >= VK_API_VERSION_1_3)
        append(subgroup_size_control);
      else
        use(info, subgroup_size_control, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
      subgroup_size_control_flag = &subgroup_size_control.subgroupSizeControl;
      compute_full_subgroups = &subgroup_size_control.computeFullSubgroups;
    }
    if (info.api_version >= VK_API_VERSION_1_2) {
      append(vulkan11);
      append(vulkan12);
      storage_buffer_16bit = &vulkan11.storageBuffer16BitAccess;
      uniform_and_storage_buffer_16bit = &vulkan11.uniformAndStorageBuffer16BitAccess;
      storage_buffer_8bit = &vulkan12.storageBuffer8BitAccess;
      uniform_and_storage_buffer_8bit = &vulkan12.uniformAndStorageBuffer8BitAccess;
      shader_float16 = &vulkan12.shaderFloat16;
      shader_int8 = &vulkan12.shaderInt8;
      // GL_NV_cooperative_matrix kernels declare the Vulkan memory model (GL_KHR_memory_scope_semantics), core in 1.2.
      vulkan_memory_model = &vulkan12.vulkanMemoryModel;
      // With the memory model enabled, a barrier of Device scope (memoryBarrierBuffer() before an arrival
      // count of other workgroups' partial results, docs/kernel-contract.md's SCRATCH) needs this one too.
      vulkan_memory_model_device_scope = &vulkan12.vulkanMemoryModelDeviceScope;
      if (use(info, cooperative_matrix, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME))
        cooperative_matrix_nv = &cooperative_matrix.cooperativeMatrix;
      if (use(info, cooperative_matrix_khr, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
        cooperative_matrix_khr_flag = &cooperative_matrix_khr.cooperativeMatrix;
        cooperative_matrix_robust_buffer_access = &cooperative_matrix_khr.cooperativeMatrixRobustBufferAccess;
        // VK_NV_cooperative_matrix2 extends the KHR extension, which must be enabled with it.
        if (use(info, cooperative_matrix2, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME)) {
          cooperative_matrix_workgroup_scope = &cooperative_matrix2.cooperativeMatrixWorkgroupScope;
          cooperative_matrix_flexible_dimensions = &cooperative_matrix2.cooperativeMatrixFlexibleDimensions;
          cooperative_matrix_reductions = &cooperative_matrix2.cooperativeMatrixReductions;
          cooperative_matrix_conversions = &cooperative_matrix2.cooperativeMatrixConversions;
          cooperative_matrix_per_element_operations =
              &cooperative_matrix2.cooperativeMatrixPerElementOperations;
          cooperative_matrix_tensor_addressing = &cooperative_matrix2.cooperativeMatrixTensorAddressing;
          cooperative_matrix_block_loads = &cooperative_matrix2.cooperativeMatrixBlockLoads;
        }
      }
      if (use(info, pipeline_executable, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME))
        pipeline_executable_info = &pipeline_executable.pipelineExecutableInfo;
      return;
    }
    if (use(info, storage16, VK_KHR_16BIT_STORAGE_EXTENSION_NAME)) {
      storage_buffer_16bit = &storage16.storageBuffer16BitAccess;
      uniform_and_storage_buffer_16bit = &storage16.uniformAndStorageBuffer16BitAccess;
    }
    if (use(info, storage8, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
      storage_buffer_8bit = &storage8.storageBuffer8BitAccess;
      uniform_and_storage_buffer_8bit = &storage8.uniformAndStorageBuffer8BitAccess;
    }
    if (use(info, float16_int8, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
      shader_float16 = &float16_int8.shaderFloat16;
      shader_int8 = &float16_int8.shaderInt8;
    }
    // Both storage extensions require this one on a Vulkan 1.0 device, where it is not yet core.
    if ((storage_buffer_16bit || storage_buffer_8bit) &&
        has_extension(info, VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_EXTENSION_NAME))
      extensions.push_back(VK_KHR_STORAGE_BUFFER_STORAGE_CLASS_EXTENSION_NAME);
  }
  // The structs point into each other.
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;

  // Every feature flag above, for copying the supported ones from one chain into another.
  static constexpr VkBool32* FeatureChain::*kFlags[] = {
      &FeatureChain::storage_buffer_16bit,
      &FeatureChain::uniform_and_storage_buffer_16bit,
      &FeatureChain::storage_buffer_8bit,
      &FeatureChain::uniform_and_storage_buffer_8bit,
      &FeatureChain::shader_float16,
      &FeatureChain::shader_int8,
      &FeatureChain::vulkan_memory_model,
      &FeatureChain::vulkan_memory_model_device_scope,
      &FeatureChain::cooperative_matrix_nv,
      &FeatureChain::cooperative_matrix_khr_flag,
      &FeatureChain::cooperative_matrix_robust_buffer_access,
      &FeatureChain::cooperative_matrix_workgroup_scope,
      &FeatureChain::cooperative_matrix_flexible_dimensions,
      &FeatureChain::cooperative_matrix_reductions,
      &FeatureChain::cooperative_matrix_conversions,
      &FeatureChain::cooperative_matrix_per_element_operations,
      &FeatureChain::cooperative_matrix_tensor_addressing,
      &FeatureChain::cooperative_matrix_block_loads,
      &FeatureChain::pipeline_executable_info,
      &FeatureChain::subgroup_size_control_flag,
      &FeatureChain::compute_full_subgroups};

 private:
  void** tail = &core.pNext;

  template <class Features>
  void append(Features& features) {
    *tail = &features;
    tail = &features.pNext;
  }
  template <class Features>
  bool use(const DeviceInfo& info, Features& features, const char* extension) {
    if (!has_extension(info, extension)) return false;
    append(features);
    extensions.push_back(extension);
    return true;
  }
};

DeviceFeatures query_features(VkPhysicalDevice physical, const DeviceInfo& info) {
  FeatureChain chain(info);
  vkGetPhysicalDeviceFeatures2(physical, &chain.core);
  const auto has = [](const VkBool32* flag) { return flag && *flag == VK_TRUE; };
  const VkPhysicalDeviceFeatures& core = chain.core.features;
  return {.storage_buffer_16bit = has(chain.storage_buffer_16bit),
          .storage_buffer_8bit = has(chain.storage_buffer_8bit),
          .shader_float16 = has(chain.shader_float16),
          .shader_int8 = has(chain.shader_int8),
          .shader_int16 = core.shaderInt16 == VK_TRUE,
          .shader_int64 = core.shaderInt64 == VK_TRUE,
          .shader_float64 = core.shaderFloat64 == VK_TRUE,
          .vulkan_memory_model = has(chain.vulkan_memory_model),
          .vulkan_memory_model_device_scope = has(chain.vulkan_memory_model_device_scope),
          .cooperative_matrix_nv = has(chain.cooperative_matrix_nv),
          .cooperative_matrix_khr = has(chain.cooperative_matrix_khr_flag),
          .cooperative_matrix_workgroup_scope = has(chain.cooperative_matrix_workgroup_scope),
          .cooperative_matrix_flexible_dimensions = has(chain.cooperative_matrix_flexible_dimensions),
          .cooperative_matrix_reductions = has(chain.cooperative_matrix_reductions),
          .cooperative_matrix_conversions = has(chain.cooperative_matrix_conversions),
          .cooperative_matrix_per_element_operations = has(chain.cooperative_matrix_per_element_operations),
          .cooperative_matrix_tensor_addressing = has(chain.cooperative_matrix_tensor_addressing),
          .cooperative_matrix_block_loads = has(chain.cooperative_matrix_block_loads),
          .pipeline_executable_info = has(chain.pipeline_executable_info),
          .subgroup_size_control = has(chain.subgroup_size_control_flag),
          .compute_full_subgroups = has(chain.compute_full_subgroups)};
}

const char* component_name(VkComponentTypeKHR type) {
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_KHR:
      return "float16";
    case VK_COMPONENT_TYPE_FLOAT32_KHR:
      return "float32";
    case VK_COMPONENT_TYPE_FLOAT64_KHR:
      return "float64";
    case VK_COMPONENT_TYPE_SINT8_KHR:
      return "sint8";
    case VK_COMPONENT_TYPE_SINT16_KHR:
      return "sint16";
    case VK_COMPONENT_TYPE_SINT32_KHR:
      return "sint32";
    case VK_COMPONENT_TYPE_SINT64_KHR:
      return "sint64";
    case VK_COMPONENT_TYPE_UINT8_KHR:
      return "uint8";
    case VK_COMPONENT_TYPE_UINT16_KHR:
      return "uint16";
    case VK_COMPONENT_TYPE_UINT32_KHR:
      return "uint32";
    case VK_COMPONENT_TYPE_UINT64_KHR:
      return "uint64";
    default:
      return "other";
  }
}

// The subgroup-scope shapes VK_KHR_cooperative_matrix lists; none where the device lacks it.
std::vector<CooperativeMatrixShape> cooperative_matrix_shapes(VkInstance instance, VkPhysicalDevice physical,
                                                              const DeviceInfo& info) {
  std::vector<CooperativeMatrixShape> shapes;
  const auto list = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!list || !has_extension(info, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) return shapes;
  uint32_t count = 0;
  if (list(physical, &count, nullptr) != VK_SUCCESS) return shapes;
  std::vector<VkCooperativeMatrixPropertiesKHR> properties(
      count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR});
  if (list(physical, &count, properties.data()) != VK_SUCCESS) return shapes;
  for (const VkCooperativeMatrixPropertiesKHR& shape : properties) {
    if (shape.scope != VK_SCOPE_SUBGROUP_KHR) continue;
    shapes.push_back({shape.MSize, shape.NSize, shape.KSize, component_name(shape.AType),
                      component_name(shape.BType), component_name(shape.CType),
                      component_name(shape.ResultType)});
  }
  return shapes;
}

// 16 bytes as 8-4-4-4-12 lowercase hex digits, the form nvidia-smi prints after "GPU-".
std::string uuid_text(const uint8_t (&bytes)[VK_UUID_SIZE]) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < VK_UUID_SIZE; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 15];
  }
  return text;
}

DeviceInfo describe(VkInstance instance, VkPhysicalDevice physical, uint32_t index) {
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  subgroup.pNext = &driver;
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  driver.pNext = &id;
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  const VkPhysicalDeviceLimits& limits = properties.properties.limits;

  DeviceInfo info;
  info.index = index;
  info.name = properties.properties.deviceName;
  info.type = type_name(properties.properties.deviceType);
  info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info.uuid = uuid_text(id.deviceUUID);
  info.vendor_id = properties.properties.vendorID;
  info.api_version = properties.properties.apiVersion;
  info.subgroup_size = subgroup.subgroupSize;
  if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) info.subgroup_operations = subgroup.supportedOperations;
  info.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  std::copy_n(limits.maxComputeWorkGroupSize, 3, info.max_workgroup_size.begin());
  std::copy_n(limits.maxComputeWorkGroupCount, 3, info.max_workgroup_count.begin());
  info.max_shared_memory_bytes = limits.maxComputeSharedMemorySize;
  info.max_storage_buffer_range = limits.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment = limits.minStorageBufferOffsetAlignment;

  const int family = compute_queue_family(physical);
  if (family >= 0) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
    if (families[family].timestampValidBits > 0) {
      info.timestamp_period_ns = limits.timestampPeriod;
      info.timestamp_valid_bits = families[family].timestampValidBits;
    }
  }

  uint32_t extension_count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &extension_count, nullptr);
  std::vector<VkExtensionProperties> extensions(extension_count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &extension_count, extensions.data());
  for (const auto& extension : extensions) info.extensions.emplace_back(extension.extensionName);
  std::sort(info.extensions.begin(), info.extensions.end());
  info.features = query_features(physical, info);
  if (has_subgroup_size_control(info)) {
    VkPhysicalDeviceSubgroupSizeControlProperties control{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceProperties2 with_control{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    with_control.pNext = &control;
    vkGetPhysicalDeviceProperties2(physical, &with_control);
    info.min_subgroup_size = control.minSubgroupSize;
    info.max_subgroup_size = control.maxSubgroupSize;
    info.required_subgroup_size_stages = control.requiredSubgroupSizeStages;
    info.max_compute_workgroup_subgroups = control.maxComputeWorkgroupSubgroups;
  }
  info.cooperative_matrix_shapes = cooperative_matrix_shapes(instance, physical, info);
  return info;
}

bool layer_available(const char* name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& layer) { return std::strcmp(layer.layerName, name) == 0; });
}

VkInstance create_instance(bool validation, bool gpu_assisted = false) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "kernelgen";
  // Kernels on GL_NV_cooperative_matrix2 are SPIR-V 1.6, which needs a Vulkan 1.3 device; the others are 1.5.
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo create{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  create.pApplicationInfo = &app;
  const char* layers[] = {kValidationLayer};
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  const VkValidationFeatureEnableEXT gpu_assisted_feature = VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &gpu_assisted_feature;
  if (validation) {
    if (!layer_available(kValidationLayer))
      throw VulkanError(VK_ERROR_LAYER_NOT_PRESENT,
                        gpu_assisted ? "enabling GPU-assisted validation (apt-get install vulkan-validationlayers)"
                                     : "enabling Vulkan validation (KERNELGEN_VK_VALIDATION=1)");
    create.enabledLayerCount = 1;
    create.ppEnabledLayerNames = layers;
    create.enabledExtensionCount = 1;
    create.ppEnabledExtensionNames = extensions;
    if (gpu_assisted) create.pNext = &features;
  }
  VkInstance instance = VK_NULL_HANDLE;
  vk_check(vkCreateInstance(&create, nullptr, &instance),
           "creating a Vulkan instance (is a Vulkan driver installed? for a CPU device: apt-get install "
           "mesa-vulkan-drivers)");
  return instance;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
  uint32_t count = 0;
  vk_check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "listing Vulkan devices");
  std::vector<VkPhysicalDevice> devices(count);
  vk_check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "listing Vulkan devices");
  return devices;
}

std::string describe_all(const std::vector<DeviceInfo>& infos) {
  std::string text;
  for (const auto& info : infos)
    text += "\n  " + std::to_string(info.index) + ": " + info.name + " (" + info.type + ")" +
            (info.uuid.empty() ? "" : " uuid " + info.uuid);
  return text;
}

// The index chosen by selector (index or name substring) or by type preference.
}  // namespace

bool has_extension(const DeviceInfo& device, const std::string& name) {
  return std::binary_search(device.extensions.begin(), device.extensions.end(), name);
}

bool matches_selector(const DeviceInfo& device, const std::string& selector) {
  const bool numeric =
      !selector.empty() && std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!numeric) {
    const std::string text = lower(selector);
    const std::string uuid = text.starts_with("gpu-") ? text.substr(4) : text;
    if (!device.uuid.empty() && uuid == device.uuid) return true;
    return !text.empty() && lower(device.name).find(text) != std::string::npos;
  }
  errno = 0;
  const unsigned long long index = std::strtoull(selector.c_str(), nullptr, 10);
  return errno == 0 && index == device.index;
}

namespace {

uint32_t select(const std::vector<DeviceInfo>& infos, const std::vector<VkPhysicalDevice>& devices,
                const DeviceSelector& selector) {
  if (infos.empty())
    throw std::runtime_error(
        "kernelgen: no Vulkan device found. Install a driver; for a CPU device: apt-get install "
        "mesa-vulkan-drivers (lavapipe)");
  std::vector<uint32_t> usable;
  for (const auto& info : infos)
    if (compute_queue_family(devices[info.index]) >= 0) usable.push_back(info.index);
  if (!selector.text.empty()) {
    for (uint32_t index : usable)
      if (matches_selector(infos[index], selector.text)) return index;
    throw std::runtime_error("kernelgen: no Vulkan device with compute matches " + selector.origin + "='" +
                             selector.text + "'" + (selector.fix.empty() ? "" : " (" + selector.fix + ")") +
                             "; devices:" + describe_all(infos));
  }
  if (usable.empty()) throw std::runtime_error("kernelgen: no Vulkan device has a compute queue" + describe_all(infos));
  return *std::min_element(usable.begin(), usable.end(), [&](uint32_t a, uint32_t b) {
    VkPhysicalDeviceProperties pa, pb;
    vkGetPhysicalDeviceProperties(devices[a], &pa);
    vkGetPhysicalDeviceProperties(devices[b], &pb);
    return type_preference(pa.deviceType) < type_preference(pb.deviceType);
  });
}

uint32_t spin_wait_us_of(const DeviceOptions& options, const DeviceInfo& info) {
  if (options.spin_wait_us >= 0) return static_cast<uint32_t>(options.spin_wait_us);
  if (const char* text = std::getenv("KERNELGEN_SPIN_WAIT_US"); text && *text) {
    char* end = nullptr;
    errno = 0;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || value > 10'000'000)
      throw std::invalid_argument(std::string("kernelgen: KERNELGEN_SPIN_WAIT_US='") + text +
                                  "' is not a number of microseconds from 0 to 10000000");
    return static_cast<uint32_t>(value);
  }
  return info.type == "cpu" ? 0 : 1000;
}

std::string pipeline_cache_path_of(const DeviceOptions& options) {
  const char* env_path = std::getenv("KERNELGEN_PIPELINE_CACHE");
  return !options.pipeline_cache_path.empty() ? options.pipeline_cache_path : (env_path ? env_path : "");
}

// The cache's saved bytes, or none when the file is missing. The driver checks the header (vendor, device,
// cache UUID) itself and starts empty on a mismatch, so a cache from another driver is harmless.
std::vector<char> read_pipeline_cache(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Writes beside the file and renames, so a crash leaves the old cache or the new one, never half of one.
void write_pipeline_cache(VkDevice device, VkPipelineCache cache, const std::string& path) {
  size_t size = 0;
  if (vkGetPipelineCacheData(device, cache, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(device, cache, &size, data.data()) != VK_SUCCESS) return;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file.write(data.data(), static_cast<std::streamsize>(size))) {
      std::fprintf(stderr, "kernelgen: could not write the pipeline cache %s\n", temporary.c_str());
      return;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    std::fprintf(stderr, "kernelgen: could not write the pipeline cache %s: %s\n", path.c_str(),
                 error.message().c_str());
}

}  // namespace

struct Device::Impl {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  MessageLog messages;
  bool gpu_assisted = false;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  std::string pipeline_cache_path;
  uint32_t spin_wait_us = 0;
  bool always_stage = false;
  std::unique_ptr<DeviceMemory> memory;
  std::unique_ptr<Queue> submissions;
  std::unique_ptr<Transfers> transfers;
  DeviceInfo info;
  bool robust = false;
  std::shared_ptr<BufferWatchers> watchers = std::make_shared<BufferWatchers>();

  ~Impl() {
    if (device) {
      vkDeviceWaitIdle(device);
      if (submissions) submissions->close();  // a Submission still held now counts as finished
      transfers.reset();
      memory.reset();
      if (pipeline_cache) {
        if (!pipeline_cache_path.empty()) write_pipeline_cache(device, pipeline_cache, pipeline_cache_path);
        vkDestroyPipelineCache(device, pipeline_cache, nullptr);
      }
      if (pool) vkDestroyCommandPool(device, pool, nullptr);
      vkDestroyDevice(device, nullptr);
    }
    if (messenger) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      if (destroy) destroy(instance, messenger, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

Device::Device(const DeviceOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->gpu_assisted = options.gpu_assisted_validation;
  const bool validation = options.validation || impl_->gpu_assisted || env_flag("KERNELGEN_VK_VALIDATION");
  impl_->instance = create_instance(validation, impl_->gpu_assisted);
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT create{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    create.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    create.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    create.pfnUserCallback = on_validation_message;
    create.pUserData = &impl_->messages;
    auto make = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(impl_->instance, "vkCreateDebugUtilsMessengerEXT"));
    vk_check(make ? make(impl_->instance, &create, nullptr, &impl_->messenger) : VK_ERROR_EXTENSION_NOT_PRESENT,
             "installing the validation message callback");
    std::fprintf(stderr, "kernelgen: Vulkan validation layer enabled%s\n",
                 impl_->gpu_assisted ? " (GPU-assisted: every access of a kernel is checked)" : "");
  }

  const auto devices = physical_devices(impl_->instance);
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(impl_->instance, devices[i], i));
  const uint32_t index = select(infos, devices, device_selector(options));
  impl_->physical = devices[index];
  impl_->info = infos[index];
  if (impl_->info.api_version < VK_API_VERSION_1_1)
    throw std::runtime_error("kernelgen: " + impl_->info.name + " supports Vulkan " +
                             std::to_string(VK_API_VERSION_MAJOR(impl_->info.api_version)) + "." +
                             std::to_string(VK_API_VERSION_MINOR(impl_->info.api_version)) +
                             "; kernelgen needs Vulkan 1.1 or later: update its driver, or choose another device "
                             "with KERNELGEN_DEVICE");
  impl_->family = static_cast<uint32_t>(compute_queue_family(impl_->physical));
  impl_->spin_wait_us = spin_wait_us_of(options, impl_->info);
  impl_->always_stage = options.always_stage || env_flag("KERNELGEN_ALWAYS_STAGE");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = impl_->family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;

  // Every optional feature the device has is enabled, so any kernel the contract allows can run.
  FeatureChain supported(impl_->info);
  vkGetPhysicalDeviceFeatures2(impl_->physical, &supported.core);
  FeatureChain enabled(impl_->info);
  for (VkBool32* FeatureChain::* flag : FeatureChain::kFlags)
    if (enabled.*flag) *(enabled.*flag) = *(supported.*flag);
  const VkPhysicalDeviceFeatures& has = supported.core.features;
  VkPhysicalDeviceFeatures& features = enabled.core.features;
  impl_->robust = options.robust_buffer_access && has.robustBufferAccess;
  features.robustBufferAccess = impl_->robust;
  features.shaderInt16 = has.shaderInt16;
  features.shaderInt64 = has.shaderInt64;
  features.shaderFloat64 = has.shaderFloat64;

  std::vector<const char*> extensions = enabled.extensions;
  VkDeviceCreateInfo create{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  create.pNext = enabled.core.pNext;
  VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  if (impl_->robust && has_extension(impl_->info, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME)) {
    VkPhysicalDeviceRobustness2FeaturesEXT query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDeviceFeatures2 features2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features2.pNext = &query;
    vkGetPhysicalDeviceFeatures2(impl_->physical, &features2);
    if (query.robustBufferAccess2) {
      robustness2.robustBufferAccess2 = VK_TRUE;
      robustness2.pNext = enabled.core.pNext;
      extensions.push_back(VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
      create.pNext = &robustness2;
    }
  }
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  // The core features go through pEnabledFeatures, the rest through the chain behind it.
  create.pEnabledFeatures = &features;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  vk_check(vkCreateDevice(impl_->physical, &create, nullptr, &impl_->device),
           "creating a logical device on " + impl_->info.name);
  vkGetDeviceQueue(impl_->device, impl_->family, 0, &impl_->queue);

  impl_->pool = create_command_pool(impl_->device, impl_->family, "");

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(impl_->physical, &memory);
  impl_->memory = std::make_unique<DeviceMemory>(impl_->device, memory, impl_->info.name);
  impl_->submissions = std::make_unique<Queue>(impl_->device, impl_->queue, impl_->spin_wait_us, impl_->info.name);
  impl_->transfers = std::make_unique<Transfers>(impl_->device, impl_->family, *impl_->submissions, *impl_->memory);

  impl_->pipeline_cache_path = pipeline_cache_path_of(options);
  const std::vector<char> saved = impl_->pipeline_cache_path.empty()
                                      ? std::vector<char>{}
                                      : read_pipeline_cache(impl_->pipeline_cache_path);
  VkPipelineCacheCreateInfo cache{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cache.initialDataSize = saved.size();
  cache.pInitialData = saved.empty() ? nullptr : saved.data();
  VkResult result = vkCreatePipelineCache(impl_->device, &cache, nullptr, &impl_->pipeline_cache);
  if (result != VK_SUCCESS && !saved.empty()) {
    // Data the driver will not take is dropped, not an error: the cache only saves time.
    cache.initialDataSize = 0;
    cache.pInitialData = nullptr;
    result = vkCreatePipelineCache(impl_->device, &cache, nullptr, &impl_->pipeline_cache);
  }
  vk_check(result, "creating a pipeline cache");
}

Device::~Device() = default;
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;

std::vector<DeviceInfo> Device::list() {
  VkInstance instance = create_instance(false);
  std::vector<DeviceInfo> infos;
  try {
    const auto devices = physical_devices(instance);
    for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(instance, devices[i], i));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  return infos;
}

DeviceInfo Device::describe_selected(const DeviceOptions& options) {
  VkInstance instance = create_instance(false);
  DeviceInfo info;
  try {
    const auto devices = physical_devices(instance);
    std::vector<DeviceInfo> infos;
    for (uint32_t i = 0; i < devices.size(); ++i) infos.push_back(describe(instance, devices[i], i));
    info = infos[select(infos, devices, device_selector(options))];
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  return info;
}

const DeviceInfo& Device::info() const { return impl_->info; }
bool Device::robust_buffer_access() const { return impl_->robust; }
bool Device::gpu_assisted_validation() const { return impl_->gpu_assisted; }
bool Device::always_stage() const { return impl_->always_stage; }
bool Device::validation_layer_available() { return layer_available(kValidationLayer); }

void BufferWatchers::watch(Kernel* kernel) {
  const std::lock_guard<std::mutex> lock(mutex_);
  kernels_.push_back(kernel);
}

void BufferWatchers::unwatch(const Kernel* kernel) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::erase(kernels_, kernel);
}

void BufferWatchers::watch(Sequence* sequence) {
  const std::lock_guard<std::mutex> lock(mutex_);
  sequences_.push_back(sequence);
}

void BufferWatchers::unwatch(const Sequence* sequence) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::erase(sequences_, sequence);
}

void BufferWatchers::buffer_died(uint64_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  // Sequences first: a submission still using the buffer, and so its descriptor sets, must end before the
  // kernels free those sets.
  // Every one hears of it, even after one failed (a lost device); then the first error goes on.
  std::exception_ptr first_error;
  for (Sequence* sequence : sequences_) {
    try {
      sequence->forget_buffer(id);
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  for (Kernel* kernel : kernels_) kernel->forget_buffer(id);
  if (first_error) std::rethrow_exception(first_error);
}

const std::shared_ptr<BufferWatchers>& Device::buffer_watchers() const { return impl_->watchers; }

std::vector<std::string> Device::take_validation_errors() {
  const std::lock_guard<std::mutex> lock(impl_->messages.mutex);
  return std::exchange(impl_->messages.errors, {});
}

std::vector<std::string> Device::take_kernel_faults() {
  const std::lock_guard<std::mutex> lock(impl_->messages.mutex);
  return std::exchange(impl_->messages.kernel_faults, {});
}
VkInstance Device::vk_instance() const { return impl_->instance; }
VkPhysicalDevice Device::vk_physical_device() const { return impl_->physical; }
VkDevice Device::vk_device() const { return impl_->device; }
VkQueue Device::vk_queue() const { return impl_->queue; }
uint32_t Device::queue_family() const { return impl_->family; }
VkCommandPool Device::vk_command_pool() const { return impl_->pool; }
uint32_t Device::spin_wait_us() const { return impl_->spin_wait_us; }

int Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required) const {
  return impl_->memory->memory_type(type_bits, required);
}

Submission Device::submit(VkCommandBuffer command_buffer) const {
  return Submission(impl_->transfers->submit(command_buffer));
}

void Device::submit_and_wait(VkCommandBuffer command_buffer) const { submit(command_buffer).wait(); }

void Device::flush_uploads() const {
  if (auto work = impl_->transfers->submit(VK_NULL_HANDLE)) work->wait();
}

DeviceMemory& DeviceInternals::memory(const Device& device) { return *device.impl_->memory; }
Transfers& DeviceInternals::transfers(const Device& device) { return *device.impl_->transfers; }
Queue& DeviceInternals::queue(const Device& device) {
  return *device.impl_->submissions;
}
VkPipelineCache DeviceInternals::pipeline_cache(const Device& device) { return device.impl_->pipeline_cache; }

}  // namespace kernelgen
