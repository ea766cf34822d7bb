// writes_of and access_at: which descriptor binding an instruction's memory access goes to, through access
// chains, for stores, atomics and cooperative-matrix loads and stores, GL_NV_cooperative_matrix2's
// tensor-addressed ones among them. What tells the validator that a kernel writes an input, and which tensor
// GPU-assisted validation's "Shader Instruction Index" names.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernelgen/spirv_interface.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::ElementsAre;
using ::testing::FieldsAre;

// SPIR-V opcodes of the instructions looked for (SPV_NV_tensor_addressing, SPV_KHR_cooperative_matrix).
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpCooperativeMatrixStoreKHR = 4458;
constexpr uint32_t kOpCooperativeMatrixLoadTensorNV = 5367;
constexpr uint32_t kOpCooperativeMatrixStoreTensorNV = 5368;

// The index of the first instruction with this opcode, counted as access_at counts: from 0 at the first
// instruction after the header.
uint64_t index_of(const std::vector<uint32_t>& words, uint32_t opcode) {
  uint64_t index = 0;
  for (size_t at = 5; at < words.size(); at += words[at] >> 16, ++index)
    if ((words[at] & 0xffff) == opcode) return index;
  throw std::logic_error("the module has no instruction of opcode " + std::to_string(opcode));
}

// A 16x16 tile of `x` (binding 0) copied by a workgroup-scope matrix to `y` (binding 2) through
// GL_NV_cooperative_matrix2's tensor layouts; binding 1 is only read.
const std::string kTensorCopy = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer S { float scale; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
void main() {
  tensorLayoutNV<2> tile = createTensorLayoutNV(2);
  tile = setTensorLayoutDimensionNV(tile, 16u, 16u);
  coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> m;
  coopMatLoadTensorNV(m, x, 0u, tile);
  coopMatStoreTensorNV(m * scale, y, 0u, tile);
}
)";

TEST(WritesOf, FindsTheBindingACooperativeMatrix2TensorStoreWrites) {
  EXPECT_THAT(writes_of(test::spirv_of(kTensorCopy)), ElementsAre(FieldsAre(0u, 2u, true)))
      << "the store to y and nothing else: the tensor load and the scale are reads";
}

// The store that makes a kernel WROTE_INPUT: a tensor store into the binding it loads from.
TEST(WritesOf, FindsATensorStoreIntoAnInput) {
  const std::vector<uint32_t> spirv = test::spirv_of(R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, std430) buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  tensorLayoutNV<2> tile = createTensorLayoutNV(2);
  tile = setTensorLayoutDimensionNV(tile, 16u, 16u);
  coopmat<float, gl_ScopeWorkgroup, 16, 16, gl_MatrixUseAccumulator> m;
  coopMatLoadTensorNV(m, x, 0u, tile);
  coopMatStoreTensorNV(m, x, 0u, tile);
  y[gl_LocalInvocationIndex] = 0.0;
}
)");
  EXPECT_THAT(writes_of(spirv), ElementsAre(FieldsAre(0u, 0u, true), FieldsAre(0u, 1u, true)));
}

TEST(WritesOf, FindsTheBindingAKhrCooperativeMatrixStoreWrites) {
  const std::vector<uint32_t> spirv = test::spirv_of(R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
void main() {
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> m;
  coopMatLoad(m, x, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
  coopMatStore(m, y, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
)");
  EXPECT_THAT(writes_of(spirv), ElementsAre(FieldsAre(0u, 1u, true)));
  const auto store = access_at(spirv, index_of(spirv, kOpCooperativeMatrixStoreKHR));
  ASSERT_TRUE(store);
  EXPECT_THAT(*store, FieldsAre(0u, 1u, true));
}

TEST(AccessAt, NamesTheBindingACooperativeMatrix2TensorLoadReads) {
  const std::vector<uint32_t> spirv = test::spirv_of(kTensorCopy);
  const auto load = access_at(spirv, index_of(spirv, kOpCooperativeMatrixLoadTensorNV));
  ASSERT_TRUE(load);
  EXPECT_THAT(*load, FieldsAre(0u, 0u, false));
  const auto store = access_at(spirv, index_of(spirv, kOpCooperativeMatrixStoreTensorNV));
  ASSERT_TRUE(store);
  EXPECT_THAT(*store, FieldsAre(0u, 2u, true));
}

TEST(AccessAt, AnInstructionThatAccessesNoBindingOrIsNotThereHasNoAccess) {
  const std::vector<uint32_t> spirv = test::spirv_of(kTensorCopy);
  EXPECT_FALSE(access_at(spirv, index_of(spirv, kOpCapability)));
  EXPECT_FALSE(access_at(spirv, spirv.size()));
}

}  // namespace
}  // namespace kernelgen
