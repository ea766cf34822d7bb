#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// y[m x n] = half(x[m x k]) * w[n x k]^T + r[m x n] in f32 for a few rows of x (a decode step), the residual
// added last, hand-written. Unlike ops/gemv/gemv.comp (2 columns a workgroup, x rounded per column), it shares
// each rounding of x among 8 columns: at k = 14336 (the down projection) that took 54.1 us on an H200 in the
// decoder block, where the 2-column shape took 69.4-70.2 (benchmarks/RESULTS.md, issue 40's section).
// The time is in reading the weights once. A workgroup of 64 invocations takes 8 output columns and 4 rows of x,
// and each invocation every 64th group of 8 elements along k: per step it rounds its 8 elements of each row of x to
// f16 once (in integers, ties to even) for all the columns, loads each column's 16 bytes before using any
// (consecutive across the workgroup, 128 bytes in flight per invocation), and adds the products in f32. Each
// column's sums are then added up per subgroup (subgroupAdd) and across the subgroups in order, with no float
// atomics. Edges go element by element (k not a multiple of 8); rows past m add nothing; a column past n reads its
// last column's row and is not written.
// kernelgen: dispatch (n + 7) / 8 (m + 3) / 4 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { uvec4 w8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WElements { float16_t w1[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { float res[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint NT = 64u, COLS = 8u, ROWS = 4u, MATS = 1u;
shared float sums[NT][MATS * COLS * ROWS];  // [subgroup][(matrix * COLS + column) * ROWS + row]

// x rounded to the nearest f16 value, ties to even, kept as a float (ops/to_half/to_half.comp).
vec4 half_rounded(vec4 v) {
  uvec4 b = floatBitsToUint(v);
  vec4 r = uintBitsToFloat((b + 0x0FFFu + ((b >> 13) & 1u)) & 0xFFFFE000u);
  vec4 a = abs(v);
  r = mix(r, roundEven(v * 16777216.0) * (1.0 / 16777216.0), lessThan(a, vec4(6.103515625e-05)));
  r = mix(r, sign(v) * uintBitsToFloat(0x7f800000u), greaterThanEqual(a, vec4(65520.0)));
  return mix(r, v, isnan(v));
}

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n, t = gl_LocalInvocationIndex;
  const uint col0 = gl_WorkGroupID.x * COLS, row0 = gl_WorkGroupID.y * ROWS;
  vec4 acc[MATS * COLS];  // acc[matrix * COLS + column][row]
  [[unroll]] for (uint a = 0u; a < MATS * COLS; ++a) acc[a] = vec4(0.0);
  if ((K & 7u) == 0u) {
    const uint KQ = K / 8u;
    for (uint kq = t; kq < KQ; kq += NT) {
      vec4 lo[ROWS], hi[ROWS];  // 8 elements of each row of x, rounded once for every column
      [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
        const uint e = min(row0 + i, M - 1u) * (K / 4u) + kq * 2u;
        lo[i] = half_rounded(x4[e]);
        hi[i] = half_rounded(x4[e + 1u]);
      }
      uvec4 packed[MATS * COLS];  // every column's 16 bytes loaded before any is used
      [[unroll]] for (uint c = 0u; c < COLS; ++c) {
        const uint row = min(col0 + c, N - 1u) * KQ + kq;
        packed[0 * COLS + c] = w8[row];
      }
      [[unroll]] for (uint a = 0u; a < MATS * COLS; ++a) {
        const vec4 wlo = vec4(unpackFloat2x16(packed[a].x), unpackFloat2x16(packed[a].y));
        const vec4 whi = vec4(unpackFloat2x16(packed[a].z), unpackFloat2x16(packed[a].w));
        [[unroll]] for (uint i = 0u; i < ROWS; ++i)
          if (row0 + i < M) acc[a][i] += dot(lo[i], wlo) + dot(hi[i], whi);
      }
    }
  } else {
    for (uint kk = t; kk < K; kk += NT) {
      vec4 xv = vec4(0.0);
      [[unroll]] for (uint i = 0u; i < ROWS; ++i)
        if (row0 + i < M) xv[i] = x1[(row0 + i) * K + kk];
      xv = half_rounded(xv);
      [[unroll]] for (uint c = 0u; c < COLS; ++c) {
        const uint at = min(col0 + c, N - 1u) * K + kk;
        acc[0 * COLS + c] += xv * float(w1[at]);
      }
    }
  }
  // Each column's sums: the subgroup's, then the subgroups' in order.
  [[unroll]] for (uint a = 0u; a < MATS * COLS; ++a)
    [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
      const float s = subgroupAdd(acc[a][i]);
      if (gl_SubgroupInvocationID == 0u) sums[gl_SubgroupID][a * ROWS + i] = s;
    }
  barrier();
  if (t < COLS * ROWS) {
    const uint c = t / ROWS, i = t % ROWS, col = col0 + c, r = row0 + i;
    if (col < N && r < M) {
      float total[MATS];
      [[unroll]] for (uint mat = 0u; mat < MATS; ++mat) {
        total[mat] = 0.0;
        for (uint g = 0u; g < gl_NumSubgroups; ++g) total[mat] += sums[g][(mat * COLS + c) * ROWS + i];
      }
      y[r * N + col] = total[0] + res[r * N + col];
    }
  }
}
