#version 450
// y[c, r] = x[r, c]. A workgroup of 32x8 invocations moves one 32x32 tile through shared memory: it reads 32
// rows of 32 consecutive floats of x (each invocation 4 of them, 8 rows apart), and after a barrier writes 32
// rows of 32 consecutive floats of y, so both the reads and the writes are coalesced. The tile's rows are 33
// floats long: reading a column of it then touches 32 different banks instead of one.
// kernelgen: dispatch (cols + 31) / 32 (rows + 31) / 32 1
layout(local_size_x = 32, local_size_y = 8, local_size_z = 1) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
shared float tile[32][33];

void main() {
  uint R = dims.rows, C = dims.cols;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint r0 = gl_WorkGroupID.y * 32u, c0 = gl_WorkGroupID.x * 32u;
  // Every invocation reaches the barrier: only the loads and stores are guarded.
  uint c = c0 + tx;
  for (uint j = 0u; j < 32u; j += 8u) {
    uint r = r0 + ty + j;
    if (r < R && c < C) tile[ty + j][tx] = x[r * C + c];
  }
  barrier();
  uint r = r0 + tx;
  for (uint j = 0u; j < 32u; j += 8u) {
    uint cc = c0 + ty + j;
    if (cc < C && r < R) y[cc * R + r] = tile[tx][ty + j];
  }
}
