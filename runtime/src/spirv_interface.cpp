#include "kernelgen/spirv_interface.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

namespace kernelgen {

namespace {

// The few SPIR-V enumerants the interface needs (SPIR-V 1.6 specification, section 3).
enum Op : uint32_t {
  kOpName = 5,
  kOpEntryPoint = 15,
  kOpExecutionMode = 16,
  kOpCapability = 17,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeMatrix = 24,
  kOpTypeArray = 28,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpSpecConstant = 50,
  kOpVariable = 59,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
};
enum Decoration : uint32_t {
  kBlock = 2,
  kBufferBlock = 3,
  kNonWritable = 24,
  kBinding = 33,
  kDescriptorSet = 34,
};
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kGLCompute = 5;
constexpr uint32_t kLocalSize = 17;
constexpr uint32_t kPushConstant = 9;
constexpr uint32_t kWorkgroup = 4;

// The types a Workgroup variable can be made of, enough to size it: each type id's opcode and operands.
struct Types {
  std::map<uint32_t, std::pair<uint32_t, std::vector<uint32_t>>> types;
  std::map<uint32_t, uint64_t> constants;  // integer constants (array lengths), first 64 bits

  // Tightly packed size in bytes; 0 for a type it does not know (a lower bound stays a lower bound).
  uint64_t size(uint32_t id, int depth = 0) const {
    const auto found = types.find(id);
    if (found == types.end() || depth > 32) return 0;
    const auto& [opcode, operands] = found->second;
    const auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; };
    switch (opcode) {
      case kOpTypeBool:
        return 4;
      case kOpTypeInt:
      case kOpTypeFloat:
        return operands.empty() ? 0 : operands[0] / 8;
      case kOpTypeVector:
      case kOpTypeMatrix:
        return operands.size() < 2 ? 0 : times(size(operands[0], depth + 1), operands[1]);
      case kOpTypeArray: {
        if (operands.size() < 2) return 0;
        const auto length = constants.find(operands[1]);
        return length == constants.end() ? 0 : times(size(operands[0], depth + 1), length->second);
      }
      case kOpTypeStruct: {
        uint64_t total = 0;
        for (uint32_t member : operands) total = std::min<uint64_t>(UINT64_MAX - 1, total) + size(member, depth + 1);
        return total;
      }
      default:
        return 0;
    }
  }
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
  static const std::map<uint32_t, const char*> names = {
      {1, "Shader"},         {9, "Float16"},          {10, "Float64"},        {11, "Int64"},
      {22, "Int16"},         {39, "Int8"},            {61, "GroupNonUniform"}, {63, "GroupNonUniformArithmetic"},
      {64, "GroupNonUniformBallot"}, {65, "GroupNonUniformShuffle"}, {4439, "StorageBuffer16BitAccess"},
      {4448, "StorageBuffer8BitAccess"}, {5357, "CooperativeMatrixNV"}, {6022, "CooperativeMatrixKHR"}};
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

std::optional<SpirvInterface> reflect_spirv(std::span<const uint32_t> words, std::string* error) {
  if (words.size() < 5) return fail(error, "shorter than the 5-word SPIR-V header"), std::nullopt;
  if (words[0] != kMagic) return fail(error, "wrong magic number (not SPIR-V)"), std::nullopt;

  SpirvInterface interface;
  uint32_t main_id = 0;
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, uint32_t> binding_of, set_of;
  std::set<uint32_t> blocks, buffer_blocks, nonwritable;
  std::map<uint32_t, std::set<uint32_t>> nonwritable_members;  // struct id -> member indices
  std::map<uint32_t, uint32_t> struct_member_count;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> pointers;  // pointer id -> (storage class, pointee)
  struct Variable {
    uint32_t id, pointer_type, storage_class;
  };
  std::vector<Variable> variables;
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> local_sizes;
  Types types;

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
        break;
      case kOpTypeStruct:
        if (operands >= 1) struct_member_count[operand[0]] = static_cast<uint32_t>(operands - 1);
        [[fallthrough]];
      case kOpTypeBool:
      case kOpTypeInt:
      case kOpTypeFloat:
      case kOpTypeVector:
      case kOpTypeMatrix:
      case kOpTypeArray:
        if (operands >= 1) types.types[operand[0]] = {opcode, std::vector<uint32_t>(operand + 1, operand + operands)};
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (operands >= 3)
          types.constants[operand[1]] = operand[2] | (operands >= 4 ? uint64_t{operand[3]} << 32 : 0);
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
  for (const auto& [entry, size] : local_sizes)
    if (entry == main_id) interface.local_size = size;

  for (const Variable& variable : variables) {
    if (variable.storage_class == kPushConstant) interface.uses_push_constants = true;
    if (variable.storage_class == kWorkgroup) {
      const auto pointer = pointers.find(variable.pointer_type);
      if (pointer != pointers.end())
        interface.workgroup_memory_bytes =
            std::min(UINT64_MAX - 1, interface.workgroup_memory_bytes) + types.size(pointer->second.second);
    }
    const bool decorated = binding_of.count(variable.id) || set_of.count(variable.id);
    if (!decorated) continue;
    SpirvBinding binding;
    binding.set = set_of.count(variable.id) ? set_of[variable.id] : 0;
    binding.binding = binding_of.count(variable.id) ? binding_of[variable.id] : 0;
    binding.storage_class = storage_class_name(variable.storage_class);
    const auto pointer = pointers.find(variable.pointer_type);
    const uint32_t pointee = pointer == pointers.end() ? 0 : pointer->second.second;
    binding.buffer_block = (variable.storage_class == 12 && blocks.count(pointee)) ||
                           (variable.storage_class == 2 && buffer_blocks.count(pointee));
    const auto members = struct_member_count.find(pointee);
    const bool all_members_readonly = members != struct_member_count.end() && members->second > 0 &&
                                      nonwritable_members[pointee].size() == members->second;
    binding.readonly = nonwritable.count(variable.id) || all_members_readonly;
    binding.name = names.count(variable.id) && !names[variable.id].empty() ? names[variable.id] : names[pointee];
    interface.bindings.push_back(binding);
  }
  std::sort(interface.bindings.begin(), interface.bindings.end(), [](const SpirvBinding& a, const SpirvBinding& b) {
    return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
  });
  return interface;
}

}  // namespace kernelgen
