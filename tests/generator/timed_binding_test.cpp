// The validator's timed run (time_kernel) binds each tensor as the generated op does
// (cmake/templates/op.cpp.in), at exactly its bytes: a kernel that reads a binding's .length() sees the same
// there as in a call, so it cannot tell that it is being timed.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgen/buffer.hpp"
#include "kernelgen/compile/compile.hpp"
#include "kernelgen/contract/op_spec.hpp"
#include "kernelgen/device.hpp"
#include "kernelgen/dim_expression.hpp"
#include "kernelgen/kernel.hpp"
#include "kernelgen/sequence.hpp"
#include "kernelgen/validation/validate.hpp"

namespace kernelgen {
namespace {

// 7 f16 elements: 14 bytes, not a multiple of 4, which a buffer rounded up to 4 would hold as 8 elements.
OpSpec length_spec() {
  return parse_op_spec(nlohmann::json::parse(R"({"name": "length_of", "contract": 2,
    "inputs": [{"name": "x", "dtype": "f16", "shape": ["n"]}],
    "outputs": [{"name": "y", "dtype": "u32", "shape": ["n"]}],
    "dims": {"n": [7]}, "bench_dims": {"n": 7}, "cpu_bench_dims": {"n": 7}})"));
}

// y[i] = x.length(): what the kernel sees of its input's binding.
const char* kLengthOfX = R"(#version 450
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { uint y[]; };
layout(push_constant) uniform Dims { uint n; };
void main() {
  for (uint i = 0u; i < n; ++i) y[i] = uint(x.length());
}
)";

KernelBinary length_kernel() {
  const Compilation compiled = compile_glsl(kLengthOfX);
  if (!compiled.ok) throw std::runtime_error(compiled.log);
  const std::vector<std::string> dims{"n"};
  return {compiled.spirv, GridExpression::parse("1 1 1", dims)};
}

// What the kernel writes when run once with x and y bound from buffers of these sizes, `ranges` bytes of each
// (empty: each buffer whole).
std::vector<uint32_t> lengths_seen(Device& device, const KernelBinary& binary,
                                   std::vector<size_t> buffer_bytes, std::vector<uint64_t> ranges) {
  Kernel kernel(device, binary.spirv, 2, 1);
  Buffer x(device, buffer_bytes[0]), y(device, buffer_bytes[1]);
  const uint32_t n = 7;
  Sequence sequence(device, 0);
  sequence.dispatch(kernel, {&x, &y}, {1, 1, 1}, std::span<const uint32_t>(&n, 1), ranges).run();
  std::vector<uint32_t> seen(n);
  y.download(seen.data(), n * 4);
  return seen;
}

TEST(TimedRun, BindsEachTensorAtExactlyItsBytesAsTheGeneratedOpDoes) {
  Device device;
  if (!device.info().features.storage_buffer_16bit)
    GTEST_SKIP() << device.info().name << " has no f16 storage";
  const OpSpec spec = length_spec();
  const KernelBinary binary = length_kernel();

  // The generated op binds each tensor's bytes of whatever buffer it is given.
  const std::vector<uint32_t> in_a_call = lengths_seen(device, binary, {64, 64}, {14, 28});
  ASSERT_EQ(in_a_call, std::vector<uint32_t>(7, 7u));
  // The kernel can tell a binding rounded up to 4 bytes, as the timed run's buffers were, from the op's.
  ASSERT_EQ(lengths_seen(device, binary, {16, 28}, {}), std::vector<uint32_t>(7, 8u));

  const TimedRun timed = time_kernel(device, spec, binary, 3, 1);
  ASSERT_EQ(timed.outputs.size(), kTimedInputSets);
  for (const TimedSizeOutput& run : timed.outputs) {
    ASSERT_EQ(run.outputs.size(), 1u);
    std::vector<uint32_t> while_timed(7);
    ASSERT_EQ(run.outputs[0].bytes.size(), while_timed.size() * 4);
    std::memcpy(while_timed.data(), run.outputs[0].bytes.data(), run.outputs[0].bytes.size());
    EXPECT_EQ(while_timed, in_a_call) << "the timed run bound x otherwise than the generated op binds it";
  }
}

}  // namespace
}  // namespace kernelgen
