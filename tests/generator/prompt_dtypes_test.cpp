// What the prompt tells a model of an op's dtypes: each non-f32 dtype's GLSL type and extensions, and for bf16,
// a storage dtype this glslang has no type for, how to widen an element and how to round a result back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/search/prompt.hpp"

namespace kernelgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

OpSpec copy_op(const std::string& dtype) {
  return parse_op_spec(nlohmann::json::parse(R"({
    "contract": 2, "name": "copy", "description": "y = x",
    "inputs": [{"name": "x", "dtype": ")" + dtype + R"(", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": ")" + dtype + R"(", "shape": ["n"]}],
    "dims": {"n": [1, 7]}, "bench_dims": {"n": 1024}
  })"));
}

DeviceInfo device_with_16bit_storage() {
  DeviceInfo info;
  info.name = "a device";
  info.type = "cpu";
  info.subgroup_size = 8;
  info.max_workgroup_invocations = 1024;
  info.max_workgroup_size = {1024, 1024, 1024};
  info.max_shared_memory_bytes = 32768;
  info.features.storage_buffer_16bit = true;
  return info;
}

TEST(PromptDtypes, ABf16OpIsToldItsStorageTypeHowToWidenAndHowToRoundBack) {
  const std::string user = build_prompt(copy_op("bf16"), "reference", device_with_16bit_storage(), {}).user;
  EXPECT_THAT(user, HasSubstr("- bf16 tensors are arrays of uint16_t; enable "
                              "`#extension GL_EXT_shader_16bit_storage : require`"));
  EXPECT_THAT(user, HasSubstr("uintBitsToFloat(uint(v) << 16)"));
  EXPECT_THAT(user, HasSubstr("(b + 0x7FFFu + ((b >> 16) & 1u)) >> 16"));
}

TEST(PromptDtypes, AnOpWithoutBf16HearsNothingOfIt) {
  for (const char* dtype : {"f32", "f16"}) {
    const std::string user = build_prompt(copy_op(dtype), "reference", device_with_16bit_storage(), {}).user;
    EXPECT_THAT(user, Not(HasSubstr("bf16"))) << dtype;
    EXPECT_THAT(user, Not(HasSubstr("<< 16"))) << dtype;
  }
}

}  // namespace
}  // namespace kernelgen
