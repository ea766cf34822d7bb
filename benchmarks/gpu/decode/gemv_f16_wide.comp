#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// y[m x n] = x[m x k] * w[n x k]^T in f16, summed in f32, for a few rows of x: the time is in reading w once, so
// each invocation issues U 16-byte loads of w before it uses any. A workgroup of NT invocations takes COLS
// columns of y (COLS rows of w) and 4 rows of x. Each subgroup takes one column at a time (the subgroups share
// the columns out, whatever their size): its invocations read 8 halves (one uvec4) of that row of w per load,
// consecutive across the subgroup, U loads at a time, and the same 8 halves of each row of x (from the cache: x
// is small), keeping one f32 sum per row; subgroupAdd adds them up and one invocation stores the results. No
// shared memory, no barrier. When k is a multiple of 8 every row of x and w starts on a 16-byte boundary and is
// read as uvec4s; otherwise half by half through second views of the same bindings.
// kernelgen: dispatch (n + @COLS@ - 1) / @COLS@ (m + 3) / 4 1
layout(local_size_x = @NT@) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { uvec4 w8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WHalves { float16_t w1[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float16_t y[]; };
const uint COLS = @COLS@u, ROWS = 4u, U = @U@u;

// The dot product of 8 halves of x with 8 halves of w, in f32.
float dot8(uvec4 x, uvec4 w) {
  return dot(vec4(unpackHalf2x16(x.x), unpackHalf2x16(x.y)), vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y))) +
         dot(vec4(unpackHalf2x16(x.z), unpackHalf2x16(x.w)), vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
}

void main() {
  uint M = dims.m, K = dims.k, N = dims.n;
  uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, row0 = gl_WorkGroupID.y * ROWS;
  uint rows = min(ROWS, M - row0);
  for (uint c = gl_SubgroupID; c < COLS; c += gl_NumSubgroups) {
    uint col = gl_WorkGroupID.x * COLS + c;
    if (col >= N) break;
    vec4 acc = vec4(0.0);  // acc[i]: row row0 + i
    if ((K & 7u) == 0u) {
      // U loads of w an invocation, each issued before any is used (past the row's end: zeros, not loaded).
      uint KQ = K / 8u, wrow = col * KQ;
      for (uint q = lane; q < KQ; q += U * S) {
        uvec4 wv[U];
        [[unroll]] for (uint u = 0u; u < U; ++u) wv[u] = q + u * S < KQ ? w8[wrow + q + u * S] : uvec4(0u);
        for (uint i = 0u; i < rows; ++i) {
          uint xrow = (row0 + i) * KQ + q;
          float sum = 0.0;
          [[unroll]] for (uint u = 0u; u < U; ++u)
            if (q + u * S < KQ) sum += dot8(x8[xrow + u * S], wv[u]);
          acc[i] += sum;
        }
      }
    } else {
      for (uint kk = lane; kk < K; kk += S) {
        float wv = float(w1[col * K + kk]);
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
        y[(row0 + i) * N + col] = float16_t(acc[i]);
      }
    }
  }
}
