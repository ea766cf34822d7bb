// reflect_spirv: the interface a compute shader declares, read from its words; anything that is not a SPIR-V
// module is refused with a reason.
#include "kernelgen/spirv_interface.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shaders.hpp"

namespace kernelgen {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

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

}  // namespace
}  // namespace kernelgen
