// reflect_spirv: the interface a compute shader declares, read from its words; anything that is not a SPIR-V
// module is refused with a reason. capability_problem: what of that interface a device lacks, or the runtime
// never enables.
#include "kernelgen/spirv_interface.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernelgen/capabilities.hpp"
#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::Not;

SpirvInterface reflect(const std::vector<uint32_t>& words) {
  std::string error;
  const auto interface = reflect_spirv(words, &error);
  if (!interface) throw std::runtime_error("reflect_spirv refused a compiled shader: " + error);
  return *interface;
}

TEST(ReflectSpirv, ReadsBindingsWritabilityAndWorkgroupSize) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 32, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0, std430) readonly buffer In { float a[]; };
layout(set = 0, binding = 1, std430) buffer Out { float b[]; } out_block;
void main() { out_block.b[gl_GlobalInvocationID.x] += a[gl_GlobalInvocationID.x]; }
)"));
  EXPECT_TRUE(interface.has_compute_main);
  EXPECT_EQ(interface.local_size, (std::array<uint32_t, 3>{32, 4, 2}));
  ASSERT_EQ(interface.bindings.size(), 2u);
  const SpirvBinding& in = interface.bindings[0];
  EXPECT_EQ(in.set, 0u);
  EXPECT_EQ(in.binding, 0u);
  EXPECT_EQ(in.storage_class, "StorageBuffer");
  EXPECT_TRUE(in.buffer_block);
  EXPECT_TRUE(in.readonly);
  EXPECT_EQ(in.name, "In") << "an anonymous block is named by its type";
  const SpirvBinding& out = interface.bindings[1];
  EXPECT_EQ(out.binding, 1u);
  EXPECT_TRUE(out.buffer_block);
  EXPECT_FALSE(out.readonly);
  EXPECT_EQ(out.name, "out_block") << "a named block by its instance";
  EXPECT_FALSE(interface.uses_push_constants);
  EXPECT_THAT(interface.capabilities, Contains("Shader"));
}

TEST(ReflectSpirv, AddsUpTheSharedVariablesOfAWorkgroup) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, std430) buffer Out { float c[]; };
shared float tile_a[16][16];
shared float tile_b[16][16];
shared vec4 extra[3];
void main() {
  uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
  tile_a[y][x] = c[x];
  tile_b[y][x] = c[y];
  extra[x % 3u] = vec4(c[x]);
  barrier();
  c[y * 16u + x] = tile_a[x][y] + tile_b[x][y] + extra[y % 3u].x;
}
)"));
  EXPECT_EQ(interface.workgroup_memory_bytes, 2u * 16 * 16 * 4 + 3 * 16) << "two 16x16 float tiles and 3 vec4";
}

TEST(ReflectSpirv, AWriteonlyBufferIsNotReadonly) {
  const SpirvInterface interface = reflect(test::spirv_of(test::kAddOne));
  ASSERT_EQ(interface.bindings.size(), 2u);
  EXPECT_TRUE(interface.bindings[0].readonly);
  EXPECT_FALSE(interface.bindings[1].readonly);
  EXPECT_EQ(interface.local_size, (std::array<uint32_t, 3>{64, 1, 1}));
}

TEST(ReflectSpirv, SortsBindingsBySetThenBinding) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 1, binding = 0, std430) buffer D { float d[]; };
layout(set = 0, binding = 2, std430) buffer C { float c[]; };
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
void main() { a[0] = c[0] + d[0]; }
)"));
  ASSERT_EQ(interface.bindings.size(), 3u);
  EXPECT_EQ(interface.bindings[0].name, "A");
  EXPECT_EQ(interface.bindings[1].name, "C");
  EXPECT_EQ(interface.bindings[2].name, "D");
  EXPECT_EQ(interface.bindings[2].set, 1u);
}

TEST(ReflectSpirv, TellsUniformBlocksAndImagesFromStorageBuffers) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std140) uniform U { vec4 u; };
layout(set = 0, binding = 1, r32f) uniform writeonly image2D image;
void main() { imageStore(image, ivec2(0), u); }
)"));
  ASSERT_EQ(interface.bindings.size(), 2u);
  EXPECT_EQ(interface.bindings[0].storage_class, "Uniform");
  EXPECT_FALSE(interface.bindings[0].buffer_block);
  EXPECT_EQ(interface.bindings[1].storage_class, "UniformConstant");
  EXPECT_FALSE(interface.bindings[1].buffer_block);
}

TEST(ReflectSpirv, NoticesPushConstants) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { float scale; };
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
void main() { a[0] *= scale; }
)"));
  EXPECT_TRUE(interface.uses_push_constants);
  EXPECT_EQ(interface.bindings.size(), 1u) << "a push-constant block is not a binding";
}

TEST(ReflectSpirv, ReadsTheMembersOfAPushConstantBlock) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform Dims { uint rows; uint cols; uint depth; } dims;
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
void main() { a[0] = float(dims.rows * dims.cols * dims.depth); }
)"));
  ASSERT_EQ(interface.push_constant_members.size(), 3u);
  const std::vector<std::string> names{"rows", "cols", "depth"};
  for (size_t i = 0; i < names.size(); ++i) {
    const SpirvMember& member = interface.push_constant_members[i];
    EXPECT_EQ(member.name, names[i]);
    EXPECT_EQ(member.offset, 4 * i);
    EXPECT_EQ(member.type.kind, "uint");
    EXPECT_EQ(member.type.width, 32u);
    EXPECT_EQ(member.components, 1u);
  }
}

TEST(ReflectSpirv, ReadsAPushConstantBlockOfOneMember) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
void main() { a[0] = float(dims.rows); }
)"));
  ASSERT_EQ(interface.push_constant_members.size(), 1u);
  EXPECT_EQ(interface.push_constant_members[0].name, "rows");
  EXPECT_EQ(interface.push_constant_members[0].offset, 0u);
  EXPECT_EQ(interface.push_constant_members[0].type.kind, "uint");
  EXPECT_EQ(interface.push_constant_members[0].type.width, 32u);
}

TEST(ReflectSpirv, TellsFloatVectorAndStructPushConstantsApart) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
struct Pair { uint a; uint b; };
layout(push_constant) uniform P { float scale; int shift; vec4 bias; Pair pair; };
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
void main() { a[0] *= scale + float(shift) + bias.x + float(pair.b); }
)"));
  ASSERT_EQ(interface.push_constant_members.size(), 4u);
  const SpirvMember& scale = interface.push_constant_members[0];
  EXPECT_EQ(scale.name, "scale");
  EXPECT_EQ(scale.type.kind, "float");
  EXPECT_EQ(scale.type.width, 32u);
  EXPECT_EQ(interface.push_constant_members[1].type.kind, "int");
  const SpirvMember& bias = interface.push_constant_members[2];
  EXPECT_EQ(bias.offset, 16u) << "a vec4 is aligned to 16 bytes";
  EXPECT_EQ(bias.type.kind, "float");
  EXPECT_EQ(bias.components, 4u);
  EXPECT_EQ(interface.push_constant_members[3].type.kind, "other");
}

TEST(ReflectSpirv, AShaderWithoutPushConstantsHasNoMembers) {
  const SpirvInterface interface = reflect(test::spirv_of(test::kAddOne));
  EXPECT_FALSE(interface.uses_push_constants);
  EXPECT_TRUE(interface.push_constant_members.empty());
}

TEST(ReflectSpirv, ReadsTheElementTypeOfEachStorageBuffer) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer F { float f[]; };
layout(set = 0, binding = 1, std430) buffer V { vec4 v[]; };
layout(set = 0, binding = 2, std430) buffer I { uint count; int ids[]; };
layout(set = 0, binding = 3, std430) buffer U { uint u[16]; };
struct Item { float weight; uint id; };
layout(set = 0, binding = 4, std430) buffer S { Item items[]; };
void main() { f[0] = v[0].x + float(ids[count] + int(u[0])) + items[0].weight; }
)"));
  ASSERT_EQ(interface.bindings.size(), 5u);
  const auto element = [&](size_t i) {
    const SpirvBinding& b = interface.bindings[i];
    return b.element.kind + std::to_string(b.element.width) + "x" + std::to_string(b.element_components);
  };
  EXPECT_EQ(element(0), "float32x1");
  EXPECT_EQ(element(1), "float32x4");
  EXPECT_EQ(element(2), "int32x1") << "the last member is the array";
  EXPECT_EQ(element(3), "uint32x1") << "a sized array too";
  EXPECT_EQ(element(4), "other0x0") << "an array of structs";
}

TEST(ReflectSpirv, ReadsHalfFloatElementsAndTheirCapabilities) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer H { float16_t h[]; };
void main() { h[0] = h[1] + float16_t(1.0); }
)"));
  ASSERT_EQ(interface.bindings.size(), 1u);
  EXPECT_EQ(interface.bindings[0].element.kind, "float");
  EXPECT_EQ(interface.bindings[0].element.width, 16u);
  EXPECT_EQ(interface.bindings[0].element_components, 1u);
  EXPECT_THAT(interface.capabilities, Contains("Float16"));
  EXPECT_THAT(interface.capabilities, Contains("StorageBuffer16BitAccess"));
}

TEST(ReflectSpirv, ReadsByteElementsAndTheirCapabilities) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer B { uint8_t b[]; };
void main() { b[0] = b[1] + uint8_t(1); }
)"));
  ASSERT_EQ(interface.bindings.size(), 1u);
  EXPECT_EQ(interface.bindings[0].element.kind, "uint");
  EXPECT_EQ(interface.bindings[0].element.width, 8u);
  EXPECT_THAT(interface.capabilities, Contains("Int8"));
  EXPECT_THAT(interface.capabilities, Contains("StorageBuffer8BitAccess"));
}

// A 32x32 tile copied by a workgroup-scope matrix through GL_NV_cooperative_matrix2's tensor layouts.
const std::string kWorkgroupTileCopy = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) writeonly buffer C { float c[]; };
void main() {
  tensorLayoutNV<2> tile = createTensorLayoutNV(2);
  tile = setTensorLayoutDimensionNV(tile, 32u, 32u);
  coopmat<float, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseAccumulator> m;
  coopMatLoadTensorNV(m, a, 0u, tile);
  coopMatStoreTensorNV(m, c, 0u, tile);
}
)";

TEST(ReflectSpirv, ACooperativeMatrix2KernelIsSpirv16WithWorkgroupScopeMatrices) {
  const SpirvInterface interface = reflect(test::spirv_of(kWorkgroupTileCopy));
  EXPECT_EQ(interface.version, 0x00010600u) << "GL_NV_cooperative_matrix2 is compiled for Vulkan 1.3";
  EXPECT_TRUE(has_workgroup_scope_matrices(interface));
  EXPECT_THAT(
      interface.capabilities,
      IsSupersetOf({"CooperativeMatrixKHR", "CooperativeMatrixTensorAddressingNV", "TensorAddressingNV"}));
  EXPECT_EQ(interface.local_size, (std::array<uint32_t, 3>{128, 1, 1}));
  ASSERT_EQ(interface.bindings.size(), 2u);
  EXPECT_TRUE(interface.bindings[0].readonly);
  EXPECT_FALSE(interface.bindings[1].readonly);
}

// Each of GL_NV_cooperative_matrix2's capabilities by its name, as capability_problem looks them up: a block
// load with a decode function, a row reduction, a per-element function, a transpose and a change of use.
TEST(ReflectSpirv, NamesEveryCooperativeMatrix2Capability) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) writeonly buffer C { float c[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Block { float value; };
#define ACC coopmat<float, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float, gl_ScopeWorkgroup, 32, 32, gl_MatrixUseA>
float decode(const in Block block, const in uint32_t block_coordinates[2], const in uint32_t coordinates[2]) {
  return block.value;
}
float sum(const in float x, const in float y) { return x + y; }
float twice(const in uint32_t row, const in uint32_t column, const in float x) { return 2.0 * x; }
void main() {
  tensorLayoutNV<2> tile = createTensorLayoutNV(2);
  tile = setTensorLayoutDimensionNV(tile, 32u, 32u);
  tile = setTensorLayoutBlockSizeNV(tile, 1u, 1u);
  ACC m;
  coopMatLoadTensorNV(m, a, 0u, tile, decode);
  ACC rows;
  coopMatReduceNV(rows, m, gl_CooperativeMatrixReduceRowNV, sum);
  ACC doubled;
  coopMatPerElementNV(doubled, rows, twice);
  MAT_A transposed;
  coopMatTransposeNV(transposed, doubled);
  coopMatStoreTensorNV(ACC(transposed), c, 0u, tile);
}
)"));
  EXPECT_THAT(
      interface.capabilities,
      IsSupersetOf({"CooperativeMatrixKHR", "CooperativeMatrixReductionsNV", "CooperativeMatrixConversionsNV",
                    "CooperativeMatrixPerElementOperationsNV", "CooperativeMatrixTensorAddressingNV",
                    "TensorAddressingNV", "CooperativeMatrixBlockLoadsNV"}));
}

// The scope is the matrix type's, not the extension's: GL_NV_cooperative_matrix2's tensor loads on subgroup
// matrices need no workgroup scope.
TEST(ReflectSpirv, ACooperativeMatrix2KernelOfSubgroupMatricesHasNoWorkgroupScopeMatrices) {
  const SpirvInterface interface = reflect(test::spirv_of(R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer A { float a[]; };
#define TILE coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
void main() {
  tensorLayoutNV<2> tile = createTensorLayoutNV(2);
  tile = setTensorLayoutDimensionNV(tile, 16u, 16u);
  TILE m;
  coopMatLoadTensorNV(m, a, 0u, tile);
  coopMatStoreTensorNV(m, a, 0u, tile);
}
)"));
  EXPECT_EQ(interface.version, 0x00010600u);
  EXPECT_FALSE(has_workgroup_scope_matrices(interface));
  EXPECT_THAT(interface.capabilities, Contains("CooperativeMatrixTensorAddressingNV"));
}

// A 16x16x16 product of f16 matrices into f32 through GL_KHR_cooperative_matrix.
const std::string kKhrProduct = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1, std430) writeonly buffer C { float c[]; };
void main() {
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> ma;
  coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> mb;
  coopMatLoad(ma, a, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
  coopMatLoad(mb, a, 256u, 16u, gl_CooperativeMatrixLayoutRowMajor);
  coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc =
      coopMatMulAdd(ma, mb, coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0));
  coopMatStore(acc, c, 0u, 16u, gl_CooperativeMatrixLayoutRowMajor);
}
)";

TEST(ReflectSpirv, AKhrCooperativeMatrixKernelIsSpirv15OfSubgroupScope) {
  const SpirvInterface interface = reflect(test::spirv_of(kKhrProduct));
  EXPECT_EQ(interface.version, 0x00010500u) << "only GL_NV_cooperative_matrix2 needs SPIR-V 1.6";
  EXPECT_FALSE(has_workgroup_scope_matrices(interface));
  EXPECT_THAT(interface.capabilities, Contains("CooperativeMatrixKHR"));
  EXPECT_THAT(interface.capabilities, Not(Contains("CooperativeMatrixTensorAddressingNV")));
}

TEST(ReflectSpirv, AKernelWithoutMatricesIsSpirv15WithoutWorkgroupScopeMatrices) {
  const SpirvInterface interface = reflect(test::spirv_of(test::kAddOne));
  EXPECT_EQ(interface.version, 0x00010500u);
  EXPECT_FALSE(has_workgroup_scope_matrices(interface));
}

TEST(ReflectSpirv, AnEntryPointNotNamedMainIsNoComputeMain) {
  std::vector<uint32_t> words = test::spirv_of(test::kAddOne);
  // OpEntryPoint GLCompute %id "main": rename the literal to "mair".
  for (size_t at = 5; at < words.size(); at += words[at] >> 16) {
    if ((words[at] & 0xffff) == 15) {
      ASSERT_EQ(words[at + 3], 0x6e69616du) << "the name's first word is 'main'";
      words[at + 3] = 0x7269616du;
      break;
    }
  }
  const SpirvInterface interface = reflect(words);
  EXPECT_FALSE(interface.has_compute_main);
  EXPECT_EQ(interface.local_size, (std::array<uint32_t, 3>{0, 0, 0})) << "the workgroup size belongs to main";
}

TEST(ReflectSpirv, SurvivesTypesThatNameThemselvesAndHugeIds) {
  const auto op = [](uint32_t opcode, std::vector<uint32_t> operands) {
    operands.insert(operands.begin(), static_cast<uint32_t>(operands.size() + 1) << 16 | opcode);
    return operands;
  };
  const uint32_t huge = 0xffffffffu;
  std::vector<uint32_t> words{0x07230203u, 0x00010000u, 0, huge, 0};
  for (const auto& instruction : {
           op(72, {10, huge, 24}),        // OpMemberDecorate %10 member 2^32-1 NonWritable
           op(30, {10, 10, 10, huge}),    // OpTypeStruct %10 { %10, %10, %huge }
           op(28, {11, 11, 11}),          // OpTypeArray %11 of %11, length %11
           op(29, {12, 12}),              // OpTypeRuntimeArray %12 of %12
           op(23, {13, 13, huge}),        // OpTypeVector %13 of %13, 2^32-1 components
           op(30, {14, 11, 12, 13, 10}),  // OpTypeStruct %14 { %11, %12, %13, %10 }
           op(32, {20, 9, 14}),           // OpTypePointer %20 PushConstant %14
           op(59, {20, 21, 9}),           // OpVariable %21 PushConstant
           op(32, {22, 4, 10}),           // OpTypePointer %22 Workgroup %10
           op(59, {22, 23, 4}),           // OpVariable %23 Workgroup
           op(32, {24, 12, 10}),          // OpTypePointer %24 StorageBuffer %10
           op(59, {24, huge, 12}),        // OpVariable %huge StorageBuffer
           op(71, {huge, 33, huge}),      // OpDecorate %huge Binding 2^32-1
       })
    words.insert(words.end(), instruction.begin(), instruction.end());
  const SpirvInterface interface = reflect(words);
  EXPECT_EQ(interface.push_constant_members.size(), 4u);
  EXPECT_EQ(interface.push_constant_members[3].type.kind, "other");
  ASSERT_EQ(interface.bindings.size(), 1u);
  EXPECT_EQ(interface.bindings[0].binding, huge);
  EXPECT_FALSE(interface.bindings[0].readonly) << "a member index past the end names no member";
  EXPECT_EQ(interface.bindings[0].element.kind, "other");
}

TEST(ReflectSpirv, RefusesFewerWordsThanTheHeader) {
  std::string error;
  EXPECT_FALSE(reflect_spirv(std::vector<uint32_t>{0x07230203u, 0x00010000u}, &error));
  EXPECT_THAT(error, HasSubstr("shorter than the 5-word SPIR-V header"));
  EXPECT_FALSE(reflect_spirv({}, &error));
}

TEST(ReflectSpirv, RefusesAWrongMagicNumber) {
  std::string error;
  std::vector<uint32_t> words = test::spirv_of(test::kAddOne);
  words[0] = 0x03022307u;  // byte-swapped
  EXPECT_FALSE(reflect_spirv(words, &error));
  EXPECT_THAT(error, HasSubstr("wrong magic number"));
}

TEST(ReflectSpirv, RefusesATruncatedInstruction) {
  std::string error;
  std::vector<uint32_t> words = test::spirv_of(test::kAddOne);
  words.resize(6);              // header, then the first instruction cut short
  words[5] = (4u << 16) | 17u;  // OpCapability claiming 4 words
  EXPECT_FALSE(reflect_spirv(words, &error));
  EXPECT_THAT(error, HasSubstr("truncated instruction at word 5"));
}

TEST(ReflectSpirv, RefusesAnInstructionOfZeroWords) {
  std::string error;
  std::vector<uint32_t> words = test::spirv_of(test::kAddOne);
  words[5] = 0;
  EXPECT_FALSE(reflect_spirv(words, &error));
  EXPECT_THAT(error, HasSubstr("word 5"));
}

TEST(ReflectSpirv, WorksWithoutAnErrorString) {
  EXPECT_FALSE(reflect_spirv(std::vector<uint32_t>{1, 2, 3}));
  EXPECT_TRUE(reflect_spirv(test::spirv_of(test::kAddOne)));
}

// A Vulkan 1.3 device with every feature a SPIR-V capability may need.
DeviceInfo able_device() {
  DeviceInfo device;
  device.name = "Able GPU";
  device.api_version = VK_API_VERSION_1_3;
  device.subgroup_operations = 0xff;
  DeviceFeatures& f = device.features;
  for (bool* feature :
       {&f.storage_buffer_16bit, &f.storage_buffer_8bit, &f.shader_float16, &f.shader_int8, &f.shader_int16,
        &f.shader_int64, &f.shader_float64, &f.vulkan_memory_model, &f.cooperative_matrix_nv,
        &f.cooperative_matrix_khr, &f.cooperative_matrix_workgroup_scope,
        &f.cooperative_matrix_flexible_dimensions, &f.cooperative_matrix_reductions,
        &f.cooperative_matrix_conversions, &f.cooperative_matrix_per_element_operations,
        &f.cooperative_matrix_tensor_addressing, &f.cooperative_matrix_block_loads})
    *feature = true;
  return device;
}

SpirvInterface declaring(std::vector<std::string> capabilities) {
  SpirvInterface interface;
  interface.version = 0x00010500u;
  interface.has_compute_main = true;
  interface.capabilities = std::move(capabilities);
  return interface;
}

struct CapabilityFeature {
  const char* capability;
  bool DeviceFeatures::*feature;
};

void PrintTo(const CapabilityFeature& pair, std::ostream* out) {
  *out << pair.capability;
}

class CapabilityOfAFeature : public ::testing::TestWithParam<CapabilityFeature> {};

// Each capability needs its own feature: with every other feature on, the device lacks it without that one.
TEST_P(CapabilityOfAFeature, IsLackingExactlyWhereTheDeviceLacksItsFeature) {
  const CapabilityFeature& pair = GetParam();
  const SpirvInterface interface = declaring({"Shader", pair.capability});
  DeviceInfo device = able_device();
  EXPECT_FALSE(capability_problem(interface, device)) << "with the feature";
  device.features.*pair.feature = false;
  const auto problem = capability_problem(interface, device);
  ASSERT_TRUE(problem) << "without the feature";
  EXPECT_EQ(problem->capability, pair.capability);
  EXPECT_TRUE(problem->device_lacks) << "a feature a device may have, not one the runtime never enables";
}

INSTANTIATE_TEST_SUITE_P(
    CooperativeMatrices, CapabilityOfAFeature,
    ::testing::Values(
        CapabilityFeature{"CooperativeMatrixNV", &DeviceFeatures::cooperative_matrix_nv},
        CapabilityFeature{"CooperativeMatrixKHR", &DeviceFeatures::cooperative_matrix_khr},
        CapabilityFeature{"CooperativeMatrixReductionsNV", &DeviceFeatures::cooperative_matrix_reductions},
        CapabilityFeature{"CooperativeMatrixConversionsNV", &DeviceFeatures::cooperative_matrix_conversions},
        CapabilityFeature{"CooperativeMatrixPerElementOperationsNV",
                          &DeviceFeatures::cooperative_matrix_per_element_operations},
        CapabilityFeature{"CooperativeMatrixTensorAddressingNV",
                          &DeviceFeatures::cooperative_matrix_tensor_addressing},
        CapabilityFeature{"TensorAddressingNV", &DeviceFeatures::cooperative_matrix_tensor_addressing},
        CapabilityFeature{"CooperativeMatrixBlockLoadsNV", &DeviceFeatures::cooperative_matrix_block_loads}),
    [](const ::testing::TestParamInfo<CapabilityFeature>& info) {
      return std::string(info.param.capability);
    });

// No capability says a matrix type is of workgroup scope: the reflected scope asks for the feature.
TEST(CapabilityProblem, WorkgroupScopeMatricesNeedTheWorkgroupScopeFeature) {
  SpirvInterface interface = declaring({"Shader", "CooperativeMatrixKHR"});
  // A 32x32 f32 accumulator of workgroup scope.
  interface.cooperative_matrices = {{{"float", 32}, 32, 32, 2, true}};
  DeviceInfo device = able_device();
  EXPECT_FALSE(capability_problem(interface, device));
  device.features.cooperative_matrix_workgroup_scope = false;
  const auto problem = capability_problem(interface, device);
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->capability, HasSubstr("workgroup scope (cooperativeMatrixWorkgroupScope)"));
  EXPECT_TRUE(problem->device_lacks);
  interface.cooperative_matrices[0].workgroup_scope = false;
  EXPECT_FALSE(capability_problem(interface, device)) << "subgroup-scope matrices need no such feature";
}

TEST(CapabilityProblem, ASpirv16ModuleNeedsAVulkan13Device) {
  SpirvInterface interface = declaring({"Shader"});
  interface.version = 0x00010600u;
  DeviceInfo device = able_device();
  EXPECT_FALSE(capability_problem(interface, device));
  device.api_version = VK_API_VERSION_1_2;
  const auto problem = capability_problem(interface, device);
  ASSERT_TRUE(problem);
  EXPECT_THAT(problem->capability, HasSubstr("SPIR-V 1.6 (a Vulkan 1.3 device)"));
  EXPECT_TRUE(problem->device_lacks);
  interface.version = 0x00010500u;
  EXPECT_FALSE(capability_problem(interface, device)) << "SPIR-V 1.5 runs on Vulkan 1.2";
}

TEST(CapabilityProblem, CapabilitiesTheRuntimeNeverEnablesAreNotTheDevicesFault) {
  for (const char* never : {"StoragePushConstant16", "4711"}) {
    const auto problem = capability_problem(declaring({"Shader", never}), able_device());
    ASSERT_TRUE(problem) << never;
    EXPECT_EQ(problem->capability, never);
    EXPECT_FALSE(problem->device_lacks) << never;
  }
}

// The compiled kernel against described devices: it runs where the device has what GL_NV_cooperative_matrix2
// asks of it, and not on one without cooperative matrices (lavapipe) or before Vulkan 1.3.
TEST(CapabilityProblem, ACooperativeMatrix2KernelRunsOnlyOnADeviceWithItsFeatures) {
  const std::vector<uint32_t> spirv = test::spirv_of(kWorkgroupTileCopy);
  DeviceInfo device = able_device();
  EXPECT_TRUE(runs_on(device, spirv));
  device.api_version = VK_API_VERSION_1_2;
  EXPECT_FALSE(runs_on(device, spirv));
  DeviceInfo without_matrices = able_device();
  without_matrices.features.cooperative_matrix_khr = false;
  without_matrices.features.cooperative_matrix_workgroup_scope = false;
  without_matrices.features.cooperative_matrix_tensor_addressing = false;
  EXPECT_FALSE(runs_on(without_matrices, spirv));
  EXPECT_TRUE(runs_on(without_matrices, test::spirv_of(test::kAddOne)));
}

TEST(ReflectSpirv, ReadsEachCooperativeMatrixTypeItsComponentSizeUseAndScope) {
  const SpirvInterface product = reflect(test::spirv_of(kKhrProduct));
  ASSERT_EQ(product.cooperative_matrices.size(), 3u);  // A, B (both f16 16x16) and the f32 accumulator
  std::vector<uint32_t> uses;
  for (const SpirvMatrixType& matrix : product.cooperative_matrices) {
    EXPECT_EQ(matrix.rows, 16u);
    EXPECT_EQ(matrix.columns, 16u);
    EXPECT_FALSE(matrix.workgroup_scope);
    EXPECT_EQ(matrix.component.kind, "float");
    EXPECT_EQ(matrix.component.width, matrix.use == 2 ? 32u : 16u) << "use " << matrix.use;
    uses.push_back(matrix.use);
  }
  EXPECT_THAT(uses, ::testing::UnorderedElementsAre(0u, 1u, 2u));
  const SpirvInterface tile = reflect(test::spirv_of(kWorkgroupTileCopy));
  ASSERT_EQ(tile.cooperative_matrices.size(), 1u);
  EXPECT_TRUE(tile.cooperative_matrices[0].workgroup_scope);
  EXPECT_EQ(tile.cooperative_matrices[0].rows, 32u);
}

// A KHR matrix of subgroup scope must be a shape the device lists; workgroup-scope matrices take any size, and a
// device that lists none leaves the verdict to the capabilities.
TEST(CapabilityProblem, AKhrMatrixOfAShapeTheDeviceDoesNotListIsLacking) {
  const SpirvInterface product = reflect(test::spirv_of(kKhrProduct));
  DeviceInfo device = able_device();
  EXPECT_FALSE(capability_problem(product, device)) << "no shapes listed";
  device.cooperative_matrix_shapes = {{16, 8, 16, "float16", "float16", "float32", "float32"}};
  const auto problem = capability_problem(product, device);
  ASSERT_TRUE(problem);
  EXPECT_TRUE(problem->device_lacks);
  EXPECT_THAT(problem->capability, HasSubstr("16x16"));
  EXPECT_THAT(problem->capability, HasSubstr("a shape the device does not list"));
  device.cooperative_matrix_shapes.push_back({16, 16, 16, "float16", "float16", "float32", "float32"});
  EXPECT_FALSE(capability_problem(product, device));
  device.cooperative_matrix_shapes = {{16, 16, 16, "sint8", "sint8", "sint32", "sint32"}};
  EXPECT_TRUE(capability_problem(product, device)) << "the sizes alone do not make an f16 shape";
  EXPECT_FALSE(capability_problem(reflect(test::spirv_of(kWorkgroupTileCopy)), device));
}

}  // namespace
}  // namespace kernelgen
