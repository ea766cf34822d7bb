#version 450
// A correct colmax (y[c] = the largest x[r, c] over the rows of x:f32[rows,64]) through SCRATCH, kept fixed for
// tests/generator/scratch_test.cpp, which edits it line by line. Workgroup w takes rows 16w .. 16w + 15, one column
// an invocation, and writes its block's maxima to partial[w, :]; it then counts itself into count[0], and the
// workgroup that arrives last takes the maximum over every block, then zeroes the scratch again: the count starts
// at 0 on every call only because the call before left it so.
// kernelgen: dispatch (rows + 15) / 16 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2, std430) coherent buffer Partial { float partial[]; };
layout(set = 0, binding = 3, std430) coherent buffer Count { uint count[]; };

shared bool last;

void main() {
  const uint w = gl_WorkGroupID.x, c = gl_LocalInvocationIndex, blocks = (dims.rows + 15u) / 16u;
  float top = x[16u * w * 64u + c];
  for (uint r = 16u * w + 1u; r < min(16u * w + 16u, dims.rows); ++r) top = max(top, x[r * 64u + c]);
  partial[w * 64u + c] = top;
  memoryBarrierBuffer();
  barrier();
  if (c == 0u) last = atomicAdd(count[0], 1u) == blocks - 1u;
  barrier();
  if (!last) return;
  memoryBarrierBuffer();
  float all = partial[c];
  for (uint b = 1u; b < blocks; ++b) all = max(all, partial[b * 64u + c]);
  y[c] = all;
  // The next call finds the scratch as this one did: each invocation zeroes the column it read, one the count.
  for (uint b = 0u; b < blocks; ++b) partial[b * 64u + c] = 0.0;
  if (c == 0u) count[0] = 0u;
}
