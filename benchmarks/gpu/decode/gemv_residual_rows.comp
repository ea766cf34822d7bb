#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// A template for examples/decoder_block's gemv_residual (y = x w^T + r, x and w f16, r and y f32), written by
// benchmarks/gpu/decode_sweep.py with @NT@ and @U@ replaced: a workgroup of NT invocations takes one column of y
// (one row of w, read once) and up to 4 rows of x. Each invocation issues U 16-byte loads of the row at once
// (consecutive across the workgroup, U * NT apart), so that at k = NT * U * 8 the whole row is in flight in one
// step, where the checked-in kernel (a subgroup a row, four loads at a time) takes k / (32 * 4 * 8) steps one
// after another. Sums in f32 per invocation, then subgroupAdd, then the subgroups' sums through shared memory, the
// residual added last. When k is not a multiple of 8 the row is read half by half through second views.
// kernelgen: dispatch n (m + 3) / 4 1
layout(local_size_x = @NT@) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { uvec4 w8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WHalves { float16_t w1[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { float res[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint NT = @NT@u, U = @U@u, ROWS = 4u;
shared vec4 partial[NT];  // [subgroup]: at most NT subgroups (of 1 invocation)

float dot8(uvec4 x, uvec4 w) {
  return dot(vec4(unpackHalf2x16(x.x), unpackHalf2x16(x.y)), vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y))) +
         dot(vec4(unpackHalf2x16(x.z), unpackHalf2x16(x.w)), vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
}

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n, col = gl_WorkGroupID.x, t = gl_LocalInvocationIndex;
  const uint row0 = gl_WorkGroupID.y * ROWS, rows = min(ROWS, M - row0);
  vec4 acc = vec4(0.0);  // acc[i]: row row0 + i
  if ((K & 7u) == 0u) {
    const uint KQ = K / 8u, wrow = col * KQ;
    for (uint q0 = t; q0 < KQ; q0 += NT * U) {
      uvec4 w[U];
      [[unroll]] for (uint u = 0u; u < U; ++u) {
        const uint q = q0 + u * NT;
        w[u] = q < KQ ? w8[wrow + q] : uvec4(0u);
      }
      [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
        if (i >= rows) break;
        float sum = 0.0;
        [[unroll]] for (uint u = 0u; u < U; ++u) {
          const uint q = q0 + u * NT;
          if (q < KQ) sum += dot8(x8[(row0 + i) * KQ + q], w[u]);
        }
        acc[i] += sum;
      }
    }
  } else {
    for (uint kk = t; kk < K; kk += NT) {
      const float wv = float(w1[col * K + kk]);
      [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
        if (i >= rows) break;
        acc[i] += float(x1[(row0 + i) * K + kk]) * wv;
      }
    }
  }
  acc = subgroupAdd(acc);
  if (subgroupElect()) partial[gl_SubgroupID] = acc;
  barrier();
  if (t == 0u) {
    vec4 total = vec4(0.0);
    for (uint s = 0u; s < gl_NumSubgroups; ++s) total += partial[s];
    [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
      if (i >= rows) break;
      y[(row0 + i) * N + col] = total[i] + res[(row0 + i) * N + col];
    }
  }
}
