#pragma once
// The few SPIR-V enumerants kernelgen reads modules with (SPIR-V 1.6 specification, section 3): the
// interface's reflection (spirv_interface.cpp) and the access an instruction makes (spirv_access.cpp).
#include <cstdint>

namespace kernelgen::spirv {

enum Op : uint32_t {
  kOpName = 5,
  kOpMemberName = 6,
  kOpEntryPoint = 15,
  kOpExecutionMode = 16,
  kOpCapability = 17,
  kOpTypeBool = 20,
  kOpTypeInt = 21,
  kOpTypeFloat = 22,
  kOpTypeVector = 23,
  kOpTypeMatrix = 24,
  kOpTypeArray = 28,
  kOpTypeRuntimeArray = 29,
  kOpTypeStruct = 30,
  kOpTypePointer = 32,
  kOpConstant = 43,
  kOpSpecConstant = 50,
  kOpVariable = 59,
  kOpLoad = 61,
  kOpStore = 62,
  kOpAccessChain = 65,
  kOpInBoundsAccessChain = 66,
  kOpPtrAccessChain = 67,
  kOpInBoundsPtrAccessChain = 70,
  kOpDecorate = 71,
  kOpMemberDecorate = 72,
  kOpCopyObject = 83,
  kOpAtomicLoad = 227,
  kOpAtomicStore = 228,
  kOpAtomicExchange = 229,
  kOpAtomicXor = 242,  // the last of the read-modify-write atomics that begin at kOpAtomicExchange
  kOpCopyMemory = 63,
  kOpCooperativeMatrixLoadKHR = 4457,
  kOpCooperativeMatrixStoreKHR = 4458,
  kOpTypeCooperativeMatrixKHR = 4456,
  kOpCooperativeMatrixLoadNV = 5359,
  kOpCooperativeMatrixStoreNV = 5360,
  kOpCooperativeMatrixLoadTensorNV = 5367,
  kOpCooperativeMatrixStoreTensorNV = 5368,
};
enum Decoration : uint32_t {
  kBlock = 2,
  kBufferBlock = 3,
  kNonWritable = 24,
  kBinding = 33,
  kDescriptorSet = 34,
  kOffset = 35,
};
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kGLCompute = 5;
constexpr uint32_t kLocalSize = 17;
constexpr uint32_t kPushConstant = 9;
constexpr uint32_t kWorkgroup = 4;  // the storage class
constexpr uint32_t kScopeWorkgroup = 2;

}  // namespace kernelgen::spirv
