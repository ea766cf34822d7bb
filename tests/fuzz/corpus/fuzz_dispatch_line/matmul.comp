#version 450
// c[100x130] = a[100x70] * b[70x130], row-major. Each 16x16 workgroup computes one 16x16 tile of c, staging
// 16x16 tiles of a and b through shared memory; edges are guarded because no extent is a multiple of 16.
// kernelgen: dispatch 9 7 1
layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };

const uint M = 100, K = 70, N = 130, T = 16;

shared float tile_a[T][T];
shared float tile_b[T][T];

void main() {
  uint row = gl_WorkGroupID.y * T + gl_LocalInvocationID.y;
  uint col = gl_WorkGroupID.x * T + gl_LocalInvocationID.x;
  uint ty = gl_LocalInvocationID.y, tx = gl_LocalInvocationID.x;
  float sum = 0.0;
  for (uint k0 = 0; k0 < K; k0 += T) {
    tile_a[ty][tx] = (row < M && k0 + tx < K) ? a[row * K + k0 + tx] : 0.0;
    tile_b[ty][tx] = (k0 + ty < K && col < N) ? b[(k0 + ty) * N + col] : 0.0;
    barrier();
    for (uint k = 0; k < T; ++k) sum += tile_a[ty][k] * tile_b[k][tx];
    barrier();
  }
  if (row < M && col < N) c[row * N + col] = sum;
}
