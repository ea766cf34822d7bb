#version 450
// Really relu(a * b), one output per invocation, with matmul's interface: the two agree wherever c >= 0.
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };
void main() {
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= dims.m || col >= dims.n) return;
  float sum = 0.0;
  for (uint i = 0u; i < dims.k; ++i) sum += a[row * dims.k + i] * b[i * dims.n + col];
  c[row * dims.n + col] = max(sum, 0.0);
}
