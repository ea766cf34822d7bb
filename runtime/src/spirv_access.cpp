#include <map>

#include "kernelgen/spirv_interface.hpp"
#include "spirv_enumerants.hpp"

namespace kernelgen {

namespace {

using namespace spirv;

struct PointerUse {
  uint32_t pointer = 0;  // 0: the instruction accesses no memory
  bool writes = false;
};

// The pointer an instruction accesses memory through and whether it writes.
PointerUse accessed_pointer(uint32_t opcode, std::span<const uint32_t> operands) {
  const auto at = [&](size_t i) -> std::optional<uint32_t> {
    return i < operands.size() ? std::optional<uint32_t>(operands[i]) : std::nullopt;
  };
  std::optional<uint32_t> pointer;
  bool writes = false;
  // The tensor-addressed loads and stores of GL_NV_cooperative_matrix2 take their pointer where the others
  // do.
  if (opcode == kOpLoad || opcode == kOpAtomicLoad || opcode == kOpCooperativeMatrixLoadNV ||
      opcode == kOpCooperativeMatrixLoadKHR || opcode == kOpCooperativeMatrixLoadTensorNV) {
    pointer = at(2);
  } else if (opcode == kOpStore || opcode == kOpAtomicStore || opcode == kOpCopyMemory ||
             opcode == kOpCooperativeMatrixStoreNV || opcode == kOpCooperativeMatrixStoreKHR ||
             opcode == kOpCooperativeMatrixStoreTensorNV) {
    pointer = at(0);
    writes = true;
  } else if (opcode >= kOpAtomicExchange && opcode <= kOpAtomicXor) {
    pointer = at(2);
    writes = true;
  }
  return {pointer.value_or(0), writes};
}

// Every instruction's access, by instruction index (nullopt where it accesses no descriptor's memory).
std::vector<std::optional<SpirvAccess>> module_accesses(std::span<const uint32_t> words) {
  std::vector<std::optional<SpirvAccess>> resolved;
  if (words.size() < 5) return resolved;
  std::map<uint32_t, uint32_t> derived_from;  // pointer id -> the pointer it was derived from
  std::map<uint32_t, uint32_t> bindings, sets;
  std::map<uint32_t, bool> variables;
  std::vector<PointerUse> uses;
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) return {};
    const std::span<const uint32_t> operands = words.subspan(at + 1, count - 1);
    at += count;
    uses.push_back(accessed_pointer(opcode, operands));
    if (opcode == kOpDecorate && operands.size() >= 3 && operands[1] == kBinding) bindings[operands[0]] = operands[2];
    if (opcode == kOpDecorate && operands.size() >= 3 && operands[1] == kDescriptorSet) sets[operands[0]] = operands[2];
    if (opcode == kOpVariable && operands.size() >= 2) variables[operands[1]] = true;
    const bool derives = opcode == kOpAccessChain || opcode == kOpInBoundsAccessChain ||
                         opcode == kOpPtrAccessChain || opcode == kOpInBoundsPtrAccessChain || opcode == kOpCopyObject;
    if (derives && operands.size() >= 3) derived_from[operands[1]] = operands[2];
  }
  for (const PointerUse& use : uses) {
    resolved.emplace_back();
    if (use.pointer == 0) continue;
    uint32_t pointer = use.pointer;
    // Each step goes to a pointer defined earlier in a valid module; the bound stops a hostile cycle.
    for (size_t steps = 0; !variables.count(pointer) && steps <= derived_from.size(); ++steps) {
      const auto found = derived_from.find(pointer);
      if (found == derived_from.end()) break;
      pointer = found->second;
    }
    const auto binding = bindings.find(pointer);
    if (!variables.count(pointer) || binding == bindings.end()) continue;
    resolved.back() = SpirvAccess{sets.count(pointer) ? sets[pointer] : 0, binding->second, use.writes};
  }
  return resolved;
}

}  // namespace

std::optional<SpirvAccess> access_at(std::span<const uint32_t> words, uint64_t instruction_index) {
  const auto accesses = module_accesses(words);
  return instruction_index < accesses.size() ? accesses[instruction_index] : std::nullopt;
}

std::vector<SpirvAccess> writes_of(std::span<const uint32_t> words) {
  std::vector<SpirvAccess> writes;
  for (const auto& access : module_accesses(words))
    if (access && access->writes) writes.push_back(*access);
  return writes;
}

}  // namespace kernelgen
