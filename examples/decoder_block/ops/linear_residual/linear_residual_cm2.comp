#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// y = x w^T + r from f16 operands into f32 on tensor cores through GL_NV_cooperative_matrix2, hand-written as the
// block's linear (ops/linear/linear_cm2.comp), with the residual added last: r's tile is loaded as a matrix of
// the accumulator's type (clamped: zero past the edges) once the sum is done. One workgroup-scope accumulator of
// BM x BN per
// workgroup, x loaded straight from its rows and w ([out, in], n x k) through a transposing tensor view. Tiles
// wholly inside y with k a multiple of BK * KU and of 8 take unclamped layouts with the `stride & ~7u` hint
// (16-byte loads); elsewhere clamped layouts read zero past the edges and the store drops what lies outside y.
// Tiles of 64 x 128: at a prefill's m = 512 they make 256 workgroups for the H200's 132 multiprocessors, where
// 128 x 128 made 128 and left each multiprocessor one (benchmarks/RESULTS.md: 10% faster at BENCH_DIMS).
// kernelgen: dispatch (n + 127) / 128 (m + 63) / 64 1
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { float16_t w[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { float r[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };

const uint BM = 64u, BN = 128u, BK = 64u, KU = 4u;  // KU: k steps unrolled on the fast path
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
  ACC acc = ACC(0.0);
  if (row0 + BM <= M && col0 + BN <= N && K % (BK * KU) == 0u && K % 8u == 0u) {
    tensorLayoutNV<2> lx = createTensorLayoutNV(2);
    tensorLayoutNV<2> lw = createTensorLayoutNV(2);
    lx = setTensorLayoutDimensionNV(lx, M, K);
    lw = setTensorLayoutDimensionNV(lw, N, K);
    lx = setTensorLayoutStrideNV(lx, K & ~7u, 1);
    lw = setTensorLayoutStrideNV(lw, K & ~7u, 1);
    for (uint k0 = 0u; k0 < K; k0 += BK * KU) {
      [[unroll]] for (uint u = 0u; u < KU; ++u) {
        MAT_A ma;
        MAT_B mb;
        coopMatLoadTensorNV(ma, x, 0u, sliceTensorLayoutNV(lx, row0, BM, k0 + u * BK, BK));
        coopMatLoadTensorNV(mb, w, 0u, sliceTensorLayoutNV(lw, col0, BN, k0 + u * BK, BK), transposed);
        acc = coopMatMulAdd(ma, mb, acc);
      }
    }
  } else {
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lx =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lw =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    lx = setTensorLayoutDimensionNV(lx, M, K);
    lw = setTensorLayoutDimensionNV(lw, N, K);
    for (uint k0 = 0u; k0 < K; k0 += BK) {
      MAT_A ma;
      MAT_B mb;
      coopMatLoadTensorNV(ma, x, 0u, sliceTensorLayoutNV(lx, row0, BM, k0, BK));
      coopMatLoadTensorNV(mb, w, 0u, sliceTensorLayoutNV(lw, col0, BN, k0, BK), transposed);
      acc = coopMatMulAdd(ma, mb, acc);
    }
  }
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> ly =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  ly = setTensorLayoutDimensionNV(ly, M, N);
  ACC residual;
  coopMatLoadTensorNV(residual, r, 0u, sliceTensorLayoutNV(ly, row0, BM, col0, BN));
  acc = acc + residual;
  coopMatStoreTensorNV(acc, y, 0u, sliceTensorLayoutNV(ly, row0, BM, col0, BN));
}
