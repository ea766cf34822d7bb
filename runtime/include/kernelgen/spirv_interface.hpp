#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kernelgen {

// What a compute shader's SPIR-V declares to the outside: read straight from the words, so the same check
// applies to a freshly compiled candidate and to a checked-in kernel.spv.

// kind "float", "int", "uint", "bool" or "other"; width in bits (0 where SPIR-V gives none: bool, "other").
struct SpirvScalar {
  std::string kind;
  uint32_t width = 0;
};

// A member of the push-constant block. A member that is neither a scalar nor a vector has type.kind "other".
struct SpirvMember {
  std::string name;
  uint32_t offset = 0;
  SpirvScalar type;
  uint32_t components = 1;  // > 1 for a vector
};

struct SpirvBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  std::string storage_class;  // "StorageBuffer", "Uniform", "UniformConstant", ...
  bool buffer_block = false;  // a std430/std140 block (Block in StorageBuffer, or BufferBlock in Uniform)
  bool readonly = false;      // every member NonWritable, or the variable itself
  std::string name;
  // The elements of the block's last member when it is an array of scalars or vectors (`float x[]` gives
  // float/32 with 1 component, `vec4 x[]` float/32 with 4); kind "other" and 0 components otherwise.
  SpirvScalar element;
  uint32_t element_components = 0;
};

// A cooperative-matrix type (OpTypeCooperativeMatrixKHR) as a module declares it.
struct SpirvMatrixType {
  SpirvScalar component;
  uint32_t rows = 0, columns = 0;
  uint32_t use = 0;  // 0: A, 1: B, 2: accumulator
  bool workgroup_scope = false;
};

struct SpirvInterface {
  uint32_t version = 0;  // the header's SPIR-V version: 0x00010500 for 1.5, 0x00010600 for 1.6
  bool has_compute_main = false;
  std::array<uint32_t, 3> local_size{0, 0, 0};  // from the LocalSize execution mode
  std::vector<SpirvBinding> bindings;           // sorted by (set, binding)
  std::vector<std::string> capabilities;
  bool uses_push_constants = false;
  // The push-constant block's members in declaration order; empty without a push-constant block.
  std::vector<SpirvMember> push_constant_members;
  std::vector<SpirvMatrixType> cooperative_matrices;
  // Bytes of the Workgroup (`shared`) variables, tightly packed: a lower bound on what the device allocates.
  uint64_t workgroup_memory_bytes = 0;
};

// Whether the module declares a cooperative-matrix type of workgroup scope (GL_NV_cooperative_matrix2's
// gl_ScopeWorkgroup), which needs
// VkPhysicalDeviceCooperativeMatrix2FeaturesNV::cooperativeMatrixWorkgroupScope: no capability says so.
bool has_workgroup_scope_matrices(const SpirvInterface& interface);

// Parses the module header and the annotations it needs. Returns nullopt and fills error for words that
// are not a SPIR-V module.
std::optional<SpirvInterface> reflect_spirv(std::span<const uint32_t> words, std::string* error = nullptr);

// The memory access made by one instruction of a module: which descriptor binding its pointer comes from
// (through any access chains), and whether it writes. What names the tensor when GPU-assisted validation
// reports an access by its "Shader Instruction Index", counted from 0 at the first instruction after the
// module's header.
struct SpirvAccess {
  uint32_t set = 0;
  uint32_t binding = 0;
  bool writes = false;
};
std::optional<SpirvAccess> access_at(std::span<const uint32_t> words, uint64_t instruction_index);

// Every store, atomic and cooperative-matrix store (tensor-addressed ones included) of a module whose pointer
// comes from a descriptor binding.
std::vector<SpirvAccess> writes_of(std::span<const uint32_t> words);

}  // namespace kernelgen
