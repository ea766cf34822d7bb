#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// y = silu(x wg^T) * (x wu^T) in f16, the two products summed in f32 on tensor cores through
// GL_NV_cooperative_matrix2, hand-written from matmul_f16's (ops/matmul_f16/matmul_f16_cm2.comp): one pair of
// workgroup-scope accumulators of BM x BN per workgroup, the gate's and the up projection's, both fed by the same
// slice of x. The weights are n x k ([out, in]): a transposing tensor view loads each k x n slice of w^T from
// them. Tiles wholly inside y with k a multiple of BK * KU and of 8 take unclamped layouts with the
// `stride & ~7u` hint (16-byte loads); elsewhere clamped layouts read zero past the edges and the store drops
// what lies outside y. The gating runs element by element on the f32 sums (the two accumulators share their
// type, so element i of each is the same (row, column)), rounded once to f16.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer WG { float16_t wg[]; };
layout(set = 0, binding = 2, std430) readonly buffer WU { float16_t wu[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float16_t y[]; };

const uint BM = 128u, BN = 128u, BK = 64u, KU = 4u;  // KU: k steps unrolled on the fast path
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
  ACC gate = ACC(0.0), up = ACC(0.0);
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
        MAT_B mg, mu;
        coopMatLoadTensorNV(ma, x, 0u, sliceTensorLayoutNV(lx, row0, BM, k0 + u * BK, BK));
        coopMatLoadTensorNV(mg, wg, 0u, sliceTensorLayoutNV(lw, col0, BN, k0 + u * BK, BK), transposed);
        coopMatLoadTensorNV(mu, wu, 0u, sliceTensorLayoutNV(lw, col0, BN, k0 + u * BK, BK), transposed);
        gate = coopMatMulAdd(ma, mg, gate);
        up = coopMatMulAdd(ma, mu, up);
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
      MAT_B mg, mu;
      coopMatLoadTensorNV(ma, x, 0u, sliceTensorLayoutNV(lx, row0, BM, k0, BK));
      coopMatLoadTensorNV(mg, wg, 0u, sliceTensorLayoutNV(lw, col0, BN, k0, BK), transposed);
      coopMatLoadTensorNV(mu, wu, 0u, sliceTensorLayoutNV(lw, col0, BN, k0, BK), transposed);
      gate = coopMatMulAdd(ma, mg, gate);
      up = coopMatMulAdd(ma, mu, up);
    }
  }
  [[unroll]] for (int i = 0; i < gate.length(); ++i) {
    const float g = gate[i];
    gate[i] = g * (1.0 / (1.0 + exp(-g))) * up[i];
  }
  tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> ly =
      createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
  ly = setTensorLayoutDimensionNV(ly, M, N);
  coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> h =
      coopmat<float16_t, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(gate);
  coopMatStoreTensorNV(h, y, 0u, sliceTensorLayoutNV(ly, row0, BM, col0, BN));
}
