#include "kernelgen/spirv_interface.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "spirv_enumerants.hpp"

namespace kernelgen {

namespace {

using namespace spirv;

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
uint64_t saturating_times(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

// A scalar or vector type as the interface reports it: kind "other" for anything else.
struct Shape {
  SpirvScalar scalar{"other", 0};
  uint32_t components = 1;
};

// The declared types: each id's opcode, operands (after the result id) and tightly packed size.
class Types {
 public:
  // SPIR-V declares a type after the types and constants it is made of, so each is sized once, here, from
  // sizes already known: no recursion, so a hostile module whose types name themselves or nest without end
  // cannot loop or exhaust the stack. An operand not yet declared counts as 0 bytes.
  void declare(uint32_t opcode, uint32_t id, std::vector<uint32_t> operands) {
    Type type{opcode, std::move(operands), 0};
    type.size = size_of(type);
    types_[id] = std::move(type);
  }

  void constant(uint32_t id, uint64_t value) { constants_[id] = value; }
  std::optional<uint64_t> constant_value(uint32_t id) const {
    const auto found = constants_.find(id);
    return found == constants_.end() ? std::nullopt : std::optional<uint64_t>(found->second);
  }

  // The operands of a type declared with this opcode; nullptr for an id that is not one.
  const std::vector<uint32_t>* operands(uint32_t id, uint32_t opcode) const {
    const auto found = types_.find(id);
    return found != types_.end() && found->second.opcode == opcode ? &found->second.operands : nullptr;
  }

  // Tightly packed size in bytes; 0 for a type it does not know (a lower bound stays a lower bound).
  uint64_t size(uint32_t id) const {
    const auto found = types_.find(id);
    return found == types_.end() ? 0 : found->second.size;
  }

  SpirvScalar scalar(uint32_t id) const {
    if (operands(id, kOpTypeBool)) return {"bool", 0};
    if (const auto* integer = operands(id, kOpTypeInt); integer && integer->size() >= 2)
      return {(*integer)[1] != 0 ? "int" : "uint", (*integer)[0]};
    if (const auto* real = operands(id, kOpTypeFloat); real && !real->empty()) return {"float", (*real)[0]};
    return {"other", 0};
  }

  Shape shape(uint32_t id) const {
    if (const auto* vector = operands(id, kOpTypeVector); vector && vector->size() >= 2)
      return {scalar((*vector)[0]), (*vector)[1]};
    return {scalar(id), 1};
  }

  // The elements of a struct's last member when it is an array of scalars or vectors.
  std::optional<Shape> last_member_elements(uint32_t struct_id) const {
    const auto* members = operands(struct_id, kOpTypeStruct);
    if (!members || members->empty()) return std::nullopt;
    const auto* array = operands(members->back(), kOpTypeRuntimeArray);
    if (!array) array = operands(members->back(), kOpTypeArray);
    if (!array || array->empty()) return std::nullopt;
    const Shape element = shape((*array)[0]);
    if (element.scalar.kind == "other") return std::nullopt;
    return element;
  }

 private:
  struct Type {
    uint32_t opcode = 0;
    std::vector<uint32_t> operands;
    uint64_t size = 0;
  };

  uint64_t size_of(const Type& type) const {
    const auto& operands = type.operands;
    switch (type.opcode) {
      case kOpTypeBool:
        return 4;
      case kOpTypeInt:
      case kOpTypeFloat:
        return operands.empty() ? 0 : operands[0] / 8;
      case kOpTypeVector:
      case kOpTypeMatrix:
        return operands.size() < 2 ? 0 : saturating_times(size(operands[0]), operands[1]);
      case kOpTypeArray: {
        if (operands.size() < 2) return 0;
        const auto length = constants_.find(operands[1]);
        return length == constants_.end() ? 0 : saturating_times(size(operands[0]), length->second);
      }
      case kOpTypeStruct: {
        uint64_t total = 0;
        for (uint32_t member : operands) total = saturating_add(total, size(member));
        return total;
      }
      default:
        return 0;
    }
  }

  std::map<uint32_t, Type> types_;
  std::map<uint32_t, uint64_t> constants_;  // integer constants (array lengths), first 64 bits
};

const char* storage_class_name(uint32_t storage_class) {
  switch (storage_class) {
    case 0:
      return "UniformConstant";
    case 2:
      return "Uniform";
    case 4:
      return "Workgroup";
    case 9:
      return "PushConstant";
    case 12:
      return "StorageBuffer";
    default:
      return "Other";
  }
}

const char* capability_name(uint32_t capability) {
  // Those a compute kernel declares for 8/16/64-bit types, subgroup operations and cooperative matrices.
  static const std::map<uint32_t, const char*> names = {
      {1, "Shader"},
      {9, "Float16"},
      {10, "Float64"},
      {11, "Int64"},
      {22, "Int16"},
      {39, "Int8"},
      {61, "GroupNonUniform"},
      {62, "GroupNonUniformVote"},
      {63, "GroupNonUniformArithmetic"},
      {64, "GroupNonUniformBallot"},
      {65, "GroupNonUniformShuffle"},
      {66, "GroupNonUniformShuffleRelative"},
      {67, "GroupNonUniformClustered"},
      {68, "GroupNonUniformQuad"},
      {4433, "StorageBuffer16BitAccess"},
      {4434, "UniformAndStorageBuffer16BitAccess"},
      {4435, "StoragePushConstant16"},
      {4448, "StorageBuffer8BitAccess"},
      {4449, "UniformAndStorageBuffer8BitAccess"},
      {4450, "StoragePushConstant8"},
      {5345, "VulkanMemoryModel"},
      {5346, "VulkanMemoryModelDeviceScope"},
      {5357, "CooperativeMatrixNV"},
      {5430, "CooperativeMatrixReductionsNV"},
      {5431, "CooperativeMatrixConversionsNV"},
      {5432, "CooperativeMatrixPerElementOperationsNV"},
      {5433, "CooperativeMatrixTensorAddressingNV"},
      {5434, "CooperativeMatrixBlockLoadsNV"},
      {5439, "TensorAddressingNV"},
      {6022, "CooperativeMatrixKHR"},
  };
  auto found = names.find(capability);
  return found == names.end() ? nullptr : found->second;
}

// A literal string starting at words[0], at most `available` words.
std::string literal_string(const uint32_t* words, size_t available) {
  std::string text;
  for (size_t i = 0; i < available; ++i) {
    for (int byte = 0; byte < 4; ++byte) {
      const char c = static_cast<char>((words[i] >> (8 * byte)) & 0xff);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return text;
}

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

}  // namespace

bool has_workgroup_scope_matrices(const SpirvInterface& interface) {
  return std::any_of(interface.cooperative_matrices.begin(), interface.cooperative_matrices.end(),
                     [](const SpirvMatrixType& matrix) { return matrix.workgroup_scope; });
}

std::optional<SpirvInterface> reflect_spirv(std::span<const uint32_t> words, std::string* error) {
  if (words.size() < 5) return fail(error, "shorter than the 5-word SPIR-V header"), std::nullopt;
  if (words[0] != kMagic) return fail(error, "wrong magic number (not SPIR-V)"), std::nullopt;

  SpirvInterface interface;
  interface.version = words[1];
  uint32_t main_id = 0;
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, uint32_t> binding_of, set_of;
  std::set<uint32_t> blocks, buffer_blocks, nonwritable;
  std::map<uint32_t, std::set<uint32_t>> nonwritable_members;         // struct id -> member indices
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names;  // (struct id, member index) -> name
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> member_offsets;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;  // pointer id -> (storage class, pointee)
  struct Variable {
    uint32_t id, pointer_type, storage_class;
  };
  std::vector<Variable> variables;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> local_sizes;
  Types types;
  struct MatrixType {
    uint32_t component, scope, rows, columns, use;
  };
  std::vector<MatrixType> matrices;  // the cooperative-matrix types, by the ids of their operands

  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    const uint32_t opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size())
      return fail(error, "truncated instruction at word " + std::to_string(at)), std::nullopt;
    const uint32_t* operand = &words[at + 1];
    const size_t operands = count - 1;
    switch (opcode) {
      case kOpCapability:
        if (operands >= 1) {
          const char* name = capability_name(operand[0]);
          interface.capabilities.push_back(name ? name : std::to_string(operand[0]));
        }
        break;
      case kOpEntryPoint:
        if (operands >= 3 && operand[0] == kGLCompute && literal_string(operand + 2, operands - 2) == "main")
          main_id = operand[1];
        break;
      case kOpExecutionMode:
        if (operands >= 5 && operand[1] == kLocalSize)
          local_sizes.push_back({operand[0], {operand[2], operand[3], operand[4]}});
        break;
      case kOpName:
        if (operands >= 2) names[operand[0]] = literal_string(operand + 1, operands - 1);
        break;
      case kOpMemberName:
        if (operands >= 3) member_names[{operand[0], operand[1]}] = literal_string(operand + 2, operands - 2);
        break;
      case kOpDecorate:
        if (operands >= 2) {
          if (operand[1] == kBinding && operands >= 3) binding_of[operand[0]] = operand[2];
          if (operand[1] == kDescriptorSet && operands >= 3) set_of[operand[0]] = operand[2];
          if (operand[1] == kBlock) blocks.insert(operand[0]);
          if (operand[1] == kBufferBlock) buffer_blocks.insert(operand[0]);
          if (operand[1] == kNonWritable) nonwritable.insert(operand[0]);
        }
        break;
      case kOpMemberDecorate:
        if (operands >= 3 && operand[2] == kNonWritable) nonwritable_members[operand[0]].insert(operand[1]);
        if (operands >= 4 && operand[2] == kOffset) member_offsets[{operand[0], operand[1]}] = operand[3];
        break;
      case kOpTypeBool:
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeMatrix:
      case kOpTypeArray:
      case kOpTypeRuntimeArray:
      case kOpTypeStruct:
        if (operands >= 1)
          types.declare(opcode, operand[0], std::vector<uint32_t>(operand + 1, operand + operands));
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (operands >= 3)
          types.constant(operand[1], operand[2] | (operands >= 4 ? uint64_t{operand[3]} << 32 : 0));
        break;
      case kOpTypeCooperativeMatrixKHR:
        // Result, component type, then the ids of constants: scope, rows, columns, use.
        if (operands >= 6) matrices.push_back({operand[1], operand[2], operand[3], operand[4], operand[5]});
        break;
      case kOpTypePointer:
        if (operands >= 3) pointers[operand[0]] = {operand[1], operand[2]};
        break;
      case kOpVariable:
        if (operands >= 3) variables.push_back({operand[1], operand[0], operand[2]});
        break;
      default:
        break;
    }
    at += count;
  }

  interface.has_compute_main = main_id != 0;
  for (const MatrixType& matrix : matrices) {
    const auto value = [&](uint32_t id) {
      return static_cast<uint32_t>(types.constant_value(id).value_or(0));
    };
    interface.cooperative_matrices.push_back({types.scalar(matrix.component), value(matrix.rows),
                                              value(matrix.columns), value(matrix.use),
                                              types.constant_value(matrix.scope) == kScopeWorkgroup});
  }
  for (const auto& [entry, size] : local_sizes)
    if (entry == main_id) interface.local_size = size;

  // An index past a struct's last member names no member: it must not make a block look read-only.
  for (auto& [struct_id, indices] : nonwritable_members) {
    const auto* members = types.operands(struct_id, kOpTypeStruct);
    indices.erase(indices.lower_bound(members ? static_cast<uint32_t>(members->size()) : 0), indices.end());
  }

  for (const Variable& variable : variables) {
    const auto pointer = pointers.find(variable.pointer_type);
    const uint32_t pointee = pointer == pointers.end() ? 0 : pointer->second.second;
    const auto* members = types.operands(pointee, kOpTypeStruct);
    if (variable.storage_class == kPushConstant) {
      // A Vulkan entry point has at most one push-constant block; the first one found is the one reported.
      if (!interface.uses_push_constants && members) {
        for (uint32_t index = 0; index < members->size(); ++index) {
          const Shape shape = types.shape((*members)[index]);
          const auto name = member_names.find({pointee, index});
          const auto offset = member_offsets.find({pointee, index});
          interface.push_constant_members.push_back({name == member_names.end() ? "" : name->second,
                                                     offset == member_offsets.end() ? 0 : offset->second,
                                                     shape.scalar, shape.components});
        }
      }
      interface.uses_push_constants = true;
    }
    if (variable.storage_class == kWorkgroup && pointer != pointers.end())
      interface.workgroup_memory_bytes =
          saturating_add(interface.workgroup_memory_bytes, types.size(pointee));
    const bool decorated = binding_of.count(variable.id) || set_of.count(variable.id);
    if (!decorated) continue;
    SpirvBinding binding;
    binding.set = set_of.count(variable.id) ? set_of[variable.id] : 0;
    binding.binding = binding_of.count(variable.id) ? binding_of[variable.id] : 0;
    binding.storage_class = storage_class_name(variable.storage_class);
    binding.buffer_block = (variable.storage_class == 12 && blocks.count(pointee)) ||
                           (variable.storage_class == 2 && buffer_blocks.count(pointee));
    const bool all_members_readonly =
        members && !members->empty() && nonwritable_members[pointee].size() == members->size();
    binding.readonly = nonwritable.count(variable.id) || all_members_readonly;
    binding.name =
        names.count(variable.id) && !names[variable.id].empty() ? names[variable.id] : names[pointee];
    const Shape none{{"other", 0}, 0};
    const Shape element = types.last_member_elements(pointee).value_or(none);
    binding.element = element.scalar;
    binding.element_components = element.components;
    interface.bindings.push_back(binding);
  }
  std::sort(interface.bindings.begin(), interface.bindings.end(),
            [](const SpirvBinding& a, const SpirvBinding& b) {
              return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
            });
  return interface;
}

}  // namespace kernelgen
