// The rate of GL_NV_cooperative_matrix multiply-adds alone, on tensor cores: each subgroup of each workgroup
// runs a loop of f16 products into f32 accumulators, eight independent ones so that no product waits on the
// one before, with no memory traffic but one store of the accumulators at the end. It is the ceiling of what
// a kernel this toolchain compiles (glslang 12 reaches no newer tensor-core GLSL;
// kernelgen/compile/tensor_extensions.hpp) can run at, which benchmarks/RESULTS.md sets beside matmul_f16's
// coopmat variant. Per shape the driver lists for f16: 16x8x16 (the variant's) and 16x16x16. Skipped on a
// device without the extension (lavapipe).
#include <benchmark/benchmark.h>

#include <kernelgen/capabilities.hpp>
#include <kernelgen/compile/compile.hpp>
#include <kernelgen/runtime.hpp>
#include <kernelgen/timing.hpp>
#include <stdexcept>
#include <string>

namespace {

constexpr uint32_t kSubgroups = 8;        // per workgroup of 256 invocations
constexpr uint32_t kAccumulators = 8;     // per subgroup
constexpr uint32_t kWorkgroups = 132 * 8;  // several per multiprocessor of an H100 (132 of them)
constexpr uint32_t kIterations = 2048;

// The kernel for products of 16x16 by 16xN: every @N@ replaced by N.
std::string ceiling_kernel(int n) {
  std::string source = R"(#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint iterations; uint scale; } dims;
layout(set = 0, binding = 0, std430) writeonly buffer Out { float o[]; };
void main() {
  // Values from a push constant (zero here), so that the compiler cannot fold the products away.
  float16_t v = float16_t(dims.scale);
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(v);
  fcoopmatNV<16, gl_ScopeSubgroup, 16, @N@> b = fcoopmatNV<16, gl_ScopeSubgroup, 16, @N@>(v);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, @N@> acc[8];
  // Unrolled, so that the accumulators stay in registers (an array indexed in a loop would go to memory).
  [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, @N@>(0.0);
  for (uint i = 0u; i < dims.iterations; ++i)
    [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[j] = coopMatMulAddNV(a, b, acc[j]);
  uint subgroup = gl_WorkGroupID.x * 8u + gl_SubgroupID;
  [[unroll]] for (uint j = 0u; j < 8u; ++j) coopMatStoreNV(acc[j], o, (subgroup * 8u + j) * 16u * @N@u, @N@u, false);
}
)";
  for (std::size_t at = source.find("@N@"); at != std::string::npos; at = source.find("@N@", at))
    source.replace(at, 3, std::to_string(n));
  return source;
}

// state.range(0): the product's n, 8 or 16 (m = k = 16).
void BM_coopmat_ceiling(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  kernelgen::Device device;
  const kernelgen::Compilation compiled = kernelgen::compile_glsl(ceiling_kernel(n));
  if (!compiled.ok) throw std::runtime_error("the ceiling kernel does not compile:\n" + compiled.log);
  if (!kernelgen::runs_on(device.info(), compiled.spirv)) {
    state.SkipWithError((device.info().name + " has no VK_NV_cooperative_matrix enabled").c_str());
    return;
  }
  kernelgen::Kernel kernel(device, compiled.spirv, 1, 2);
  kernelgen::Buffer out(device, std::size_t{kWorkgroups} * kSubgroups * kAccumulators * 16 * n * sizeof(float));
  const uint32_t words[2] = {kIterations, 0};
  kernelgen::DispatchTimer timer(device, [&](kernelgen::Sequence& sequence) {
    sequence.dispatch(kernel, {&out}, {kWorkgroups, 1, 1}, words);
  });
  for (auto _ : state) state.SetIterationTime(timer.measure().median_ns * 1e-9);
  const double flops = 2.0 * 16 * n * 16 * kAccumulators * kIterations * kSubgroups * kWorkgroups;
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(device.info().name + ", 16x" + std::to_string(n) + "x16 f16 products into f32");
}
BENCHMARK(BM_coopmat_ceiling)->ArgName("n")->Arg(8)->Arg(16)->UseManualTime()->Iterations(4)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
