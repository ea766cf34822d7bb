#version 450
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// q = x wq^T, k = x wk^T, v = x wv^T in f32 for a few rows of x (a decode step), x and the weights f16, summed
// in f32, hand-written in the shape of the catalog's gemv_f16 (generated/gemv_f16/kernel.comp, whose output is
// f16), with the workgroups of all three products side by side in one dispatch (gl_WorkGroupID.z chooses the
// weight and the output): three dispatches of 33.6 MB each left the GPU part idle at each one's start and end.
// The time is in reading the weights once, so the kernel keeps many 16-byte loads of them in flight, with no
// shared memory and no barrier. A workgroup of 128 invocations takes 4 columns of one output (4 rows of its
// weight) and 4 rows of x. Each subgroup takes one column at a time (the subgroups share the 4 columns out,
// whatever their size): its invocations read 8 halves (one uvec4) of that row of the weight per step,
// consecutive across the subgroup, four steps at a time (four independent loads in flight), and the same 8
// halves of each row of x (from the cache: x is small), keeping one f32 sum per row; subgroupAdd adds them up and
// one invocation stores the results. When k is a multiple of 8 every row of x and of the weights starts on a
// 16-byte boundary and is read as uvec4s; otherwise half by half through second views of the same bindings.
// kernelgen: dispatch (n + 3) / 4 (m + 3) / 4 3
layout(local_size_x = 128) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { uvec4 x8[]; };
layout(set = 0, binding = 0, std430) readonly buffer XHalves { float16_t x1[]; };
layout(set = 0, binding = 1, std430) readonly buffer Wq { uvec4 wq8[]; };
layout(set = 0, binding = 1, std430) readonly buffer WqHalves { float16_t wq1[]; };
layout(set = 0, binding = 2, std430) readonly buffer Wk { uvec4 wk8[]; };
layout(set = 0, binding = 2, std430) readonly buffer WkHalves { float16_t wk1[]; };
layout(set = 0, binding = 3, std430) readonly buffer Wv { uvec4 wv8[]; };
layout(set = 0, binding = 3, std430) readonly buffer WvHalves { float16_t wv1[]; };
layout(set = 0, binding = 4, std430) writeonly buffer QOut { float q[]; };
layout(set = 0, binding = 5, std430) writeonly buffer KOut { float k[]; };
layout(set = 0, binding = 6, std430) writeonly buffer VOut { float v[]; };
const uint COLS = 4u, ROWS = 4u;

// The dot product of 8 halves of x with 8 halves of w, in f32.
float dot8(uvec4 x, uvec4 w) {
  return dot(vec4(unpackHalf2x16(x.x), unpackHalf2x16(x.y)), vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y))) +
         dot(vec4(unpackHalf2x16(x.z), unpackHalf2x16(x.w)), vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
}

// Column col of rows row0.. of one product: W8 and W1 the weight's two views, Y the output.
#define PRODUCT_COLUMN(W8, W1, Y)                                                                                  \
  {                                                                                                              \
    vec4 acc = vec4(0.0); /* acc[i]: row row0 + i */                                                             \
    if ((K & 7u) == 0u) {                                                                                        \
      const uint KQ = K / 8u, wrow = col * KQ;                                                                   \
      uint p = lane;                                                                                             \
      for (; p + 3u * S < KQ; p += 4u * S) {                                                                     \
        const uvec4 w0 = W8[wrow + p], w1v = W8[wrow + p + S], w2 = W8[wrow + p + 2u * S],                       \
                    w3 = W8[wrow + p + 3u * S];                                                                  \
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {                                                            \
          if (i >= rows) break;                                                                                  \
          const uint xrow = (row0 + i) * KQ + p;                                                                 \
          acc[i] += (dot8(x8[xrow], w0) + dot8(x8[xrow + S], w1v)) +                                            \
                    (dot8(x8[xrow + 2u * S], w2) + dot8(x8[xrow + 3u * S], w3));                                 \
        }                                                                                                        \
      }                                                                                                          \
      for (; p < KQ; p += S) {                                                                                   \
        const uvec4 w0 = W8[wrow + p];                                                                           \
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {                                                            \
          if (i >= rows) break;                                                                                  \
          acc[i] += dot8(x8[(row0 + i) * KQ + p], w0);                                                           \
        }                                                                                                        \
      }                                                                                                          \
    } else {                                                                                                     \
      for (uint kk = lane; kk < K; kk += S) {                                                                    \
        const float wk = float(W1[col * K + kk]);                                                                \
        [[unroll]] for (uint i = 0u; i < ROWS; ++i) {                                                            \
          if (i >= rows) break;                                                                                  \
          acc[i] += float(x1[(row0 + i) * K + kk]) * wk;                                                         \
        }                                                                                                        \
      }                                                                                                          \
    }                                                                                                            \
    acc = subgroupAdd(acc);                                                                                      \
    if (subgroupElect()) {                                                                                       \
      [[unroll]] for (uint i = 0u; i < ROWS; ++i) {                                                              \
        if (i >= rows) break;                                                                                    \
        Y[(row0 + i) * N + col] = acc[i];                                                                        \
      }                                                                                                          \
    }                                                                                                            \
  }

void main() {
  const uint M = dims.m, K = dims.k, N = dims.n;
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, row0 = gl_WorkGroupID.y * ROWS;
  const uint rows = min(ROWS, M - row0), which = gl_WorkGroupID.z;
  for (uint c = gl_SubgroupID; c < COLS; c += gl_NumSubgroups) {
    const uint col = gl_WorkGroupID.x * COLS + c;
    if (col >= N) break;
    if (which == 0u) PRODUCT_COLUMN(wq8, wq1, q)
    else if (which == 1u) PRODUCT_COLUMN(wk8, wk1, k)
    else PRODUCT_COLUMN(wv8, wv1, v)
  }
}
