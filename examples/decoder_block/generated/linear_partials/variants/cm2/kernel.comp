#version 450
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
// p[s] = x[:, ks] w[:, ks]^T for each of `splits` ranges ks of k (range s is [s c, min((s + 1) c, k)),
// c = ceil(k / splits)) from f16 operands into f32 on tensor cores through GL_NV_cooperative_matrix2, hand-written
// as the block's linear (ops/linear/linear_cm2.comp: one workgroup-scope accumulator, x and the transposed w
// loaded straight from the tensors), workgroup z taking range z and storing p[z]. Its tiles are 128 x 128, where
// linear's are 64 x 128: a prefill's 512 rows make 128 of them at n = 4096, 256 split in two along k, and on an
// H200 64 x 128 tiles split so ran no faster than linear_residual's unsplit (benchmarks/RESULTS.md). Tiles wholly inside p whose range is a multiple of BK * KU long
// and starts on 8 halves, with k a multiple of 8, take unclamped layouts with the `stride & ~7u` hint (16-byte
// loads); elsewhere clamped layouts end at the range's end (zero past it and past m and n), their row stride k.
// kernelgen: dispatch (n + 127) / 128 (m + 127) / 128 splits
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; uint splits; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float16_t x[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { float16_t w[]; };
layout(set = 0, binding = 2, std430) writeonly buffer P { float p[]; };

const uint BM = 128u, BN = 128u, BK = 64u, KU = 4u;  // KU: k steps unrolled on the fast path
#define ACC coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB>

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, z = gl_WorkGroupID.z;
  const uint chunk = (K + dims.splits - 1u) / dims.splits, begin = min(z * chunk, K), end = min(begin + chunk, K);
  tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
  ACC acc = ACC(0.0);
  if (row0 + BM <= M && col0 + BN <= N && (end - begin) % (BK * KU) == 0u && begin % 8u == 0u && K % 8u == 0u) {
    tensorLayoutNV<2> lx = createTensorLayoutNV(2);
    tensorLayoutNV<2> lw = createTensorLayoutNV(2);
    lx = setTensorLayoutDimensionNV(lx, M, K);
    lw = setTensorLayoutDimensionNV(lw, N, K);
    lx = setTensorLayoutStrideNV(lx, K & ~7u, 1);
    lw = setTensorLayoutStrideNV(lw, K & ~7u, 1);
    // From begin & ~7u (begin itself here): a start the compiler knows is on 8 halves keeps the loads 16 bytes wide,
    // as the stride's hint does (from begin as it is, the product ran at 38 TFLOP/s on an H200).
    for (uint k0 = begin & ~7u; k0 < end; k0 += BK * KU) {
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
    lx = setTensorLayoutDimensionNV(lx, M, end);
    lw = setTensorLayoutDimensionNV(lw, N, end);
    lx = setTensorLayoutStrideNV(lx, K, 1);
    lw = setTensorLayoutStrideNV(lw, K, 1);
    for (uint k0 = begin; k0 < end; k0 += BK) {
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
  coopMatStoreTensorNV(acc, p, z * M * N, sliceTensorLayoutNV(ly, row0, BM, col0, BN));
}
