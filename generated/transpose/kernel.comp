#version 450
// y[c, r] = x[r, c] through a 16x16 shared tile, one element per invocation: each invocation reads x[r0+ty,
// c0+tx] into tile[ty][tx] and, after the barrier, writes y[c0+ty, r0+tx] = tile[tx][ty], so both reads and
// writes run along rows. The tile's rows are padded to 17 floats against bank conflicts. Loads and stores are
// guarded, so every invocation reaches the barrier.
// kernelgen: dispatch (cols + 15) / 16 (rows + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
shared float tile[16][17];
void main() {
  uint R = dims.rows, C = dims.cols;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint r0 = gl_WorkGroupID.y * 16u, c0 = gl_WorkGroupID.x * 16u;
  if (r0 + ty < R && c0 + tx < C) tile[ty][tx] = x[(r0 + ty) * C + c0 + tx];
  barrier();
  if (c0 + ty < C && r0 + tx < R) y[(c0 + ty) * R + r0 + tx] = tile[tx][ty];
}
