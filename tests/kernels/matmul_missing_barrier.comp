#version 450
// Bad matmul for kernelgen's own tests. Expected: INCORRECT_NUMERICAL or NONDETERMINISTIC.
// The bug: no barrier between the last read of a tile and the next tile's loads, so a fast invocation
// overwrites a tile its neighbours are still reading: a race, which a GPU may not show on a given run.
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };
shared float tile_a[16][16];
shared float tile_b[16][16];
void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint row = gl_WorkGroupID.y * 16u + ty, col = gl_WorkGroupID.x * 16u + tx;
  float sum = 0.0;
  for (uint t = 0u; t < dims.k; t += 16u) {
    tile_a[ty][tx] = row < dims.m && t + tx < dims.k ? a[row * dims.k + t + tx] : 0.0;
    tile_b[ty][tx] = t + ty < dims.k && col < dims.n ? b[(t + ty) * dims.n + col] : 0.0;
    barrier();
    for (uint i = 0u; i < 16u; ++i) sum += tile_a[ty][i] * tile_b[i][tx];
  }
  if (row < dims.m && col < dims.n) c[row * dims.n + col] = sum;
}
