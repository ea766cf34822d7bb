#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
// y = silu(x wg^T) * (x wu^T) in f32 for a few rows of x (a decode step), x, wg and wu f16, summed in f32,
// hand-written. The time is in reading the two weights once: a workgroup of 64 invocations takes 2 output columns,
// 32 invocations each, and 4 rows of x. Each group of 32 reads its column's rows of wg and wu 8 halves (16 bytes)
// per invocation per step, consecutive across the group, and multiplies them with the same 8 halves of each of the
// 4 rows of x; it then adds up its 32 partial sums of each in shared memory in a fixed order, and gates them as
// the reference writes it. Edges go element by element: k not a multiple of 8, rows past m, a column past n.
// kernelgen: dispatch (n + 1) / 2 (m + 3) / 4 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XElements { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer WG { uvec4 wg8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WGElements { float16_t wg1[]; };
layout(set = 0, binding = 2, std430) readonly buffer WU { uvec4 wu8[]; };
layout(set = 0, binding = 2, std430) readonly buffer WUElements { float16_t wu1[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint ROWS = 4u;
shared vec4 partial[2][64];  // partial[0 gate, 1 up][t][i]: invocation t's sums for row i

void main() {
  uint M = dims.m, K = dims.k, N = dims.n;
  uint t = gl_LocalInvocationID.x, lane = t & 31u;
  uint col = gl_WorkGroupID.x * 2u + (t >> 5), row0 = gl_WorkGroupID.y * ROWS;
  vec4 acc = vec4(0.0), acc_up = vec4(0.0);
  if (col < N) {
    if ((K & 7u) == 0u) {
      for (uint kq = lane; kq < K / 8u; kq += 32u) {
        uvec4 packed = wg8[col * (K / 8u) + kq], packed_up = wu8[col * (K / 8u) + kq];
        vec4 wlo = vec4(unpackFloat2x16(packed.x), unpackFloat2x16(packed.y));
        vec4 whi = vec4(unpackFloat2x16(packed.z), unpackFloat2x16(packed.w));
        vec4 ulo = vec4(unpackFloat2x16(packed_up.x), unpackFloat2x16(packed_up.y));
        vec4 uhi = vec4(unpackFloat2x16(packed_up.z), unpackFloat2x16(packed_up.w));
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
          uint r = row0 + i;
          if (r >= M) break;
          uvec4 xp = x8[r * (K / 8u) + kq];
          vec4 xlo = vec4(unpackFloat2x16(xp.x), unpackFloat2x16(xp.y));
          vec4 xhi = vec4(unpackFloat2x16(xp.z), unpackFloat2x16(xp.w));
          acc[i] += dot(xlo, wlo) + dot(xhi, whi);
          acc_up[i] += dot(xlo, ulo) + dot(xhi, uhi);
        }
      }
    } else {
      for (uint kk = lane; kk < K; kk += 32u) {
        float wv = float(wg1[col * K + kk]), uv = float(wu1[col * K + kk]);
        vec4 xv = vec4(0.0);
        [[unroll]] for (uint i = 0u; i < ROWS; ++i)
          if (row0 + i < M) xv[i] = float(x1[(row0 + i) * K + kk]);
        acc += xv * wv;
        acc_up += xv * uv;
      }
    }
  }
  partial[0][t] = acc;
  partial[1][t] = acc_up;
  barrier();
  [[unroll]] for (uint w = 16u; w > 0u; w >>= 1) {
    if (lane < w) {
      partial[0][t] += partial[0][t + w];
      partial[1][t] += partial[1][t + w];
    }
    barrier();
  }
  if (lane == 0u && col < N) {
    [[unroll]] for (uint i = 0u; i < ROWS; ++i)
      if (row0 + i < M) {
        float gv = partial[0][t][i];
        y[(row0 + i) * N + col] = gv * (1.0 / (1.0 + exp(-gv))) * partial[1][t][i];
      }
  }
}
