#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// y[m x n] = x[m x k] * w[n x k]^T + r[m x n] for a few rows of x (a decode step), x and w f16, summed in f32, r
// and y f32, the residual added last; hand-written in the shape of the catalog's gemv_f16 (generated/gemv_f16/kernel.comp, whose output is f16):
// the time is in reading w once, so the kernel keeps many 16-byte loads of it in flight, with no shared memory and
// no barrier. A workgroup of 128 invocations takes 4 columns of y (4 rows of w) and 4 rows of x. Each subgroup
// takes one column at a time (the subgroups share the 4 columns out, whatever their size): its invocations read 8
// halves (one uvec4) of that row of w per step, consecutive across the subgroup, four steps at a time (four
// independent loads in flight), and the same 8 halves of each row of x (from the cache: x is small), keeping one
// f32 sum per row; subgroupAdd adds them up and one invocation stores the results with the residual added. When k is a
// multiple of 8 every row of x and w starts on a 16-byte boundary and is read as uvec4s; otherwise half by half
// through second views of the same bindings.
// kernelgen: dispatch (n + 3) / 4 (m + 3) / 4 1
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { uvec4 w8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WHalves { float16_t w1[]; };
layout(set = 0, binding = 2, std430) readonly buffer R { float res[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
const uint COLS = 4u, ROWS = 4u;

// The dot product of 8 halves of x with 8 halves of w, in f32.
float dot8(uvec4 x, uvec4 w) {
  return dot(vec4(unpackHalf2x16(x.x), unpackHalf2x16(x.y)), vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y))) +
         dot(vec4(unpackHalf2x16(x.z), unpackHalf2x16(x.w)), vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
}

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, row0 = gl_WorkGroupID.y * ROWS;
  const uint rows = min(ROWS, M - row0);
  for (uint c = gl_SubgroupID; c < COLS; c += gl_NumSubgroups) {
    const uint col = gl_WorkGroupID.x * COLS + c;
    if (col >= N) break;
    vec4 acc = vec4(0.0);  // acc[i]: row row0 + i
    if ((K & 7u) == 0u) {
      const uint KQ = K / 8u, wrow = col * KQ;
      uint q = lane;
      for (; q + 3u * S < KQ; q += 4u * S) {
        const uvec4 w0 = w8[wrow + q], w1v = w8[wrow + q + S], w2 = w8[wrow + q + 2u * S],
                    w3 = w8[wrow + q + 3u * S];
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
          if (i >= rows) break;
          const uint xrow = (row0 + i) * KQ + q;
          acc[i] += (dot8(x8[xrow], w0) + dot8(x8[xrow + S], w1v)) +
                    (dot8(x8[xrow + 2u * S], w2) + dot8(x8[xrow + 3u * S], w3));
        }
      }
      for (; q < KQ; q += S) {
        const uvec4 w0 = w8[wrow + q];
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
          if (i >= rows) break;
          acc[i] += dot8(x8[(row0 + i) * KQ + q], w0);
        }
      }
    } else {
      for (uint kk = lane; kk < K; kk += S) {
        const float wv = float(w1[col * K + kk]);
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
          if (i >= rows) break;
          acc[i] += float(x1[(row0 + i) * K + kk]) * wv;
        }
      }
    }
    acc = subgroupAdd(acc);
    if (subgroupElect()) {
      [[unroll]] for (uint i = 0u; i < ROWS; ++i) {
        if (i >= rows) break;
        y[(row0 + i) * N + col] = acc[i] + res[(row0 + i) * N + col];
      }
    }
  }
}
