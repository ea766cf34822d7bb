#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// y[m x n] = half(x[m x k]) * w[n x k]^T + r[m x n] in f32 for a few rows of x (a decode step), the residual
// added last, hand-written as ops/gemv/gemv.comp; the time is in reading w once: a workgroup of 64 invocations takes 2 output columns, 32 invocations each, and 4 rows of x.
// Each group of 32 reads its column's row of w 8 halves (16 bytes) per invocation per step, consecutive across
// the group, and multiplies them with the same 8 elements of each of the 4 rows of x (rounded to f16 in integers,
// ties to even); it then adds up its 32 partial sums in shared memory in a fixed order. Edges go element by
// element: k not a multiple of 8, rows past m, a column past n.
// kernelgen: dispatch (n + 1) / 2 (m + 3) / 4 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { uvec4 w8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WElements { float16_t w1[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { float res[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint ROWS = 4u;
shared vec4 partial[64];  // partial[t][i]: invocation t's sum for row i

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
  uint M = dims.m, K = dims.k, N = dims.n;
  uint t = gl_LocalInvocationID.x, lane = t & 31u;
  uint col = gl_WorkGroupID.x * 2u + (t >> 5), row0 = gl_WorkGroupID.y * ROWS;
  vec4 acc = vec4(0.0);
  if (col < N) {
    if ((K & 7u) == 0u) {
      for (uint kq = lane; kq < K / 8u; kq += 32u) {
        uvec4 packed = w8[col * (K / 8u) + kq];
        vec4 wlo = vec4(unpackFloat2x16(packed.x), unpackFloat2x16(packed.y));
        vec4 whi = vec4(unpackFloat2x16(packed.z), unpackFloat2x16(packed.w));
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
          uint r = row0 + i;
          if (r >= M) break;
          uint e = r * (K / 4u) + kq * 2u;
          acc[i] += dot(half_rounded(x4[e]), wlo) + dot(half_rounded(x4[e + 1u]), whi);
        }
      }
    } else {
      for (uint kk = lane; kk < K; kk += 32u) {
        float wv = float(w1[col * K + kk]);
        vec4 xv = vec4(0.0);
        [[unroll]] for (uint i = 0u; i < ROWS; ++i)
          if (row0 + i < M) xv[i] = x1[(row0 + i) * K + kk];
        acc += half_rounded(xv) * wv;
      }
    }
  }
  partial[t] = acc;
  barrier();
  [[unroll]] for (uint w = 16u; w > 0u; w >>= 1) {
    if (lane < w) partial[t] += partial[t + w];
    barrier();
  }
  if (lane == 0u && col < N) {
    [[unroll]] for (uint i = 0u; i < ROWS; ++i)
      if (row0 + i < M) y[(row0 + i) * N + col] = partial[t][i] + res[(row0 + i) * N + col];
  }
}
