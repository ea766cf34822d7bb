// The rate of cooperative-matrix multiply-adds alone, on tensor cores, with no memory traffic but one store
// of the accumulators at the end: the ceiling of what a kernel of each extension can run at, which
// benchmarks/RESULTS.md sets beside the GEMMs' variants of that extension. Skipped on a device without the
// extension (lavapipe).
// - BM_coopmat_ceiling: GL_NV_cooperative_matrix, subgroup scope (the coopmat variants). Each subgroup of 8 a
//   workgroup runs a loop of 16x16 by 16xN f16 products into f32, eight independent accumulators so that no
//   product waits on the one before. Per shape the driver lists for f16: 16x8x16 (the variant's) and
//   16x16x16.
// - BM_khr_coopmat_ceiling: the same on GL_KHR_cooperative_matrix (the khr variants), 16x16x16.
// - BM_coopmat2_ceiling: GL_NV_cooperative_matrix2's workgroup-scope matrices (the cm2 variants): one BM x BN
//   f32 accumulator a workgroup, BM x BK by BK x BN products, the shapes the cm2 GEMMs use
//   (generated/matmul_f16/variants/cm2/kernel.comp: 128 x 128 x 64 at 128 invocations).
#include <benchmark/benchmark.h>

#include <kernelgen/capabilities.hpp>
#include <kernelgen/compile/compile.hpp>
#include <kernelgen/runtime.hpp>
#include <kernelgen/timing.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr uint32_t kWorkgroups = 132 * 8;  // several per multiprocessor of an H100 or H200 (132 of them)
constexpr double kFlops = 1.1e12;          // a dispatch's products: about 2 ms at 500 TFLOP/s

// source with every "@NAME@" replaced by its value.
std::string instantiate(std::string source, const std::vector<std::pair<std::string, int>>& values) {
  for (const auto& [name, value] : values) {
    const std::string key = "@" + name + "@";
    for (std::size_t at = source.find(key); at != std::string::npos; at = source.find(key, at))
      source.replace(at, key.size(), std::to_string(value));
  }
  return source;
}

// Products of 16x16 by 16xN on subgroup-scope matrices, 8 subgroups of 32 a workgroup, 8 accumulators each.
constexpr uint32_t kSubgroups = 8;
constexpr uint32_t kAccumulators = 8;

// What the two subgroup-scope kernels share after their extension: 8 subgroups of 32, the loop's count and a
// zero in push constants, the output.
constexpr const char* kSubgroupInterface = R"(#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint iterations; uint scale; } dims;
layout(set = 0, binding = 0, std430) writeonly buffer Out { float o[]; };
)";

constexpr const char* kNvSubgroupKernel = R"(void main() {
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

constexpr const char* kKhrSubgroupKernel =
    R"(#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, 16, @N@, gl_MatrixUseB>
#define ACC coopmat<float, gl_ScopeSubgroup, 16, @N@, gl_MatrixUseAccumulator>
void main() {
  float16_t v = float16_t(dims.scale);
  MAT_A a = MAT_A(v);
  MAT_B b = MAT_B(v);
  ACC acc[8];
  [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[j] = ACC(0.0);
  for (uint i = 0u; i < dims.iterations; ++i)
    [[unroll]] for (uint j = 0u; j < 8u; ++j) acc[j] = coopMatMulAdd(a, b, acc[j]);
  uint subgroup = gl_WorkGroupID.x * 8u + gl_SubgroupID;
  [[unroll]] for (uint j = 0u; j < 8u; ++j)
    coopMatStore(acc[j], o, (subgroup * 8u + j) * 16u * @N@u, @N@u, gl_CooperativeMatrixLayoutRowMajor);
}
)";

// One BM x BN accumulator a workgroup of INVOCATIONS, products of BM x BK by BK x BN.
constexpr const char* kWorkgroupKernel = R"(#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = @INVOCATIONS@) in;
layout(push_constant) uniform Dims { uint iterations; uint scale; } dims;
layout(set = 0, binding = 0, std430) writeonly buffer Out { float o[]; };
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, @BM@, @BK@, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, @BK@, @BN@, gl_MatrixUseB>
#define ACC coopmat<float, gl_ScopeWorkgroup, @BM@, @BN@, gl_MatrixUseAccumulator>
void main() {
  float16_t v = float16_t(dims.scale);
  MAT_A a = MAT_A(v);
  MAT_B b = MAT_B(v);
  ACC acc = ACC(0.0);
  for (uint i = 0u; i < dims.iterations; ++i) acc = coopMatMulAdd(a, b, acc);
  tensorLayoutNV<2> layout_o = createTensorLayoutNV(2);
  layout_o = setTensorLayoutDimensionNV(layout_o, gl_NumWorkGroups.x * @BM@u, @BN@u);
  coopMatStoreTensorNV(acc, o, 0u, sliceTensorLayoutNV(layout_o, gl_WorkGroupID.x * @BM@u, @BM@u, 0u, @BN@u));
}
)";

struct Ceiling {
  std::string source;
  double flops_an_iteration_a_workgroup;
  std::size_t output_floats_a_workgroup;
  std::string label;
};

void run_ceiling(benchmark::State& state, const Ceiling& ceiling, const char* extension) {
  kernelgen::Device device;
  const kernelgen::Compilation compiled = kernelgen::compile_glsl(ceiling.source);
  if (!compiled.ok) throw std::runtime_error("the ceiling kernel does not compile:\n" + compiled.log);
  if (!kernelgen::runs_on(device.info(), compiled.spirv)) {
    state.SkipWithError((device.info().name + " has no " + extension + " enabled").c_str());
    return;
  }
  const auto iterations =
      static_cast<uint32_t>(kFlops / (ceiling.flops_an_iteration_a_workgroup * kWorkgroups));
  kernelgen::Kernel kernel(device, compiled.spirv, 1, 2);
  kernelgen::Buffer out(device, std::size_t{kWorkgroups} * ceiling.output_floats_a_workgroup * sizeof(float));
  const uint32_t words[2] = {iterations, 0};
  kernelgen::DispatchTimer timer(device, [&](kernelgen::Sequence& sequence) {
    sequence.dispatch(kernel, {&out}, {kWorkgroups, 1, 1}, words);
  });
  for (auto _ : state) state.SetIterationTime(timer.measure().median_ns * 1e-9);
  const double flops = ceiling.flops_an_iteration_a_workgroup * iterations * kWorkgroups;
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(device.info().name + ", " + ceiling.label);
}

// extension: the GLSL extension of the kernel's matrices; body: main().
Ceiling subgroup_ceiling(const char* extension, const char* body, int n) {
  const std::string source =
      std::string("#version 450\n#extension ") + extension + " : require\n" + kSubgroupInterface + body;
  return {instantiate(source, {{"N", n}}), 2.0 * 16 * n * 16 * kAccumulators * kSubgroups,
          std::size_t{kSubgroups} * kAccumulators * 16 * n,
          "16x" + std::to_string(n) + "x16 f16 products into f32, subgroup scope"};
}

// state.range(0): the product's n, 8 or 16 (m = k = 16).
void BM_coopmat_ceiling(benchmark::State& state) {
  run_ceiling(
      state,
      subgroup_ceiling("GL_NV_cooperative_matrix", kNvSubgroupKernel, static_cast<int>(state.range(0))),
      "VK_NV_cooperative_matrix");
}
BENCHMARK(BM_coopmat_ceiling)
    ->ArgName("n")
    ->Arg(8)
    ->Arg(16)
    ->UseManualTime()
    ->Iterations(4)
    ->Unit(benchmark::kMicrosecond);

void BM_khr_coopmat_ceiling(benchmark::State& state) {
  run_ceiling(
      state,
      subgroup_ceiling("GL_KHR_cooperative_matrix", kKhrSubgroupKernel, static_cast<int>(state.range(0))),
      "VK_KHR_cooperative_matrix");
}
BENCHMARK(BM_khr_coopmat_ceiling)
    ->ArgName("n")
    ->Arg(16)
    ->UseManualTime()
    ->Iterations(4)
    ->Unit(benchmark::kMicrosecond);

// state.range: BM, BN, BK, invocations.
void BM_coopmat2_ceiling(benchmark::State& state) {
  const int bm = static_cast<int>(state.range(0)), bn = static_cast<int>(state.range(1));
  const int bk = static_cast<int>(state.range(2)), invocations = static_cast<int>(state.range(3));
  const Ceiling ceiling{
      instantiate(kWorkgroupKernel, {{"BM", bm}, {"BN", bn}, {"BK", bk}, {"INVOCATIONS", invocations}}),
      2.0 * bm * bn * bk, std::size_t(bm) * bn,
      std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
          " f16 products into f32, workgroup scope, " + std::to_string(invocations) + " invocations"};
  run_ceiling(state, ceiling, "VK_NV_cooperative_matrix2");
}
BENCHMARK(BM_coopmat2_ceiling)
    ->ArgNames({"bm", "bn", "bk", "invocations"})
    ->Args({128, 128, 64, 128})
    ->Args({128, 128, 32, 128})
    ->Args({128, 128, 64, 256})
    ->Args({128, 256, 64, 256})
    ->Args({64, 128, 64, 128})
    ->Args({64, 64, 64, 128})
    ->UseManualTime()
    ->Iterations(4)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
