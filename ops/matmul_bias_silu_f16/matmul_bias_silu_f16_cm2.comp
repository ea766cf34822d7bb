#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// c[m x n] = silu(a[m x k] * b[k x n] + bias[n]) in f16, row-major, summed in f32 on tensor cores through
// GL_NV_cooperative_matrix2, hand-written from matmul_f16's (ops/matmul_f16/matmul_f16_cm2.comp), whose tiling,
// fast path and clamped edges it shares. The epilogue is a per-element operation on the f32 sums: it is told each
// element's row and column within the tile, adds the column's bias and applies silu, and the result is rounded
// once to f16 (columns past n read the last bias; the store drops them).
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2, std430) readonly buffer Bias { float16_t bias[]; };
layout(set = 0, binding = 3, std430) writeonly buffer C { float16_t c[]; };

const uint BM = 128u, BN = 128u, BK = 64u, KU = 4u;  // KU: k steps unrolled on the fast path
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>

float bias_silu(const in uint row, const in uint col, const in float sum, const in uint col0, const in uint last) {
  const float v = sum + float(bias[min(col0 + col, last)]);
  return v * (1.0 / (1.0 + exp(-v)));
}

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  ACC acc = ACC(0.0);
  if (row0 + BM <= M && col0 + BN <= N && K % (BK * KU) == 0u && N % 8u == 0u) {
    tensorLayoutNV<2> la = createTensorLayoutNV(2);
    tensorLayoutNV<2> lb = createTensorLayoutNV(2);
    la = setTensorLayoutDimensionNV(la, M, K);
    lb = setTensorLayoutDimensionNV(lb, K, N);
    la = setTensorLayoutStrideNV(la, K & ~7u, 1);
    lb = setTensorLayoutStrideNV(lb, N & ~7u, 1);
    for (uint k0 = 0u; k0 < K; k0 += BK * KU) {
      [[unroll]] for (uint u = 0u; u < KU; ++u) {
        MAT_A ma;
        MAT_B mb;
        coopMatLoadTensorNV(ma, a, 0u, sliceTensorLayoutNV(la, row0, BM, k0 + u * BK, BK));
        coopMatLoadTensorNV(mb, b, 0u, sliceTensorLayoutNV(lb, k0 + u * BK, BK, col0, BN));
        acc = coopMatMulAdd(ma, mb, acc);
      }
    }
  } else {
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> la =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lb =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    la = setTensorLayoutDimensionNV(la, M, K);
    lb = setTensorLayoutDimensionNV(lb, K, N);
    for (uint k0 = 0u; k0 < K; k0 += BK) {
      MAT_A ma;
      MAT_B mb;
      coopMatLoadTensorNV(ma, a, 0u, sliceTensorLayoutNV(la, row0, BM, k0, BK));
      coopMatLoadTensorNV(mb, b, 0u, sliceTensorLayoutNV(lb, k0, BK, col0, BN));
      acc = coopMatMulAdd(ma, mb, acc);
    }
  }
  coopMatPerElementNV(acc, acc, bias_silu, col0, N - 1u);
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lc =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  lc = setTensorLayoutDimensionNV(lc, M, N);
  coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> h =
      coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(acc);
  coopMatStoreTensorNV(h, c, 0u, sliceTensorLayoutNV(lc, row0, BM, col0, BN));
}
