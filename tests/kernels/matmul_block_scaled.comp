#version 450
// c[m x n] = a[m x k] * b[k x n], row-major, one element of c per invocation, with the flaw of a kernel that shares
// one scale among many values (as f32 from f16 parts on tensor cores may): each block of 8 rows of a has one scale,
// its largest magnitude, and values more than 2^26 below it are lost (read as 0). The other cases keep their
// values within 2^26 of a block's largest (`mixed`: 1e-3..1e4; `large`, uniform in +-1e4, loses such a value about
// once in 10^8), or lose only values too small to matter (`subnormal`); a block with an infinity or NaN is summed as it is. Where a block holds an outlier 2^30 above the
// rest (`outliers`), the rows beside it lose nearly everything. For evaluate_test.cpp: that case must reject it.
// kernelgen: dispatch (n + 15) / 16 (m + 15) / 16 1
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Dims { uint m; uint k; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 2, std430) writeonly buffer C { float c[]; };

void main() {
  uint row = gl_GlobalInvocationID.y, col = gl_GlobalInvocationID.x;
  if (row >= dims.m || col >= dims.n) return;
  uint first = row / 8u * 8u, last = min(first + 8u, dims.m);
  float largest = 0.0;
  for (uint r = first; r < last; ++r)
    for (uint kk = 0u; kk < dims.k; ++kk) largest = max(largest, abs(a[r * dims.k + kk]));
  // 2^-26 of the block's largest; 0 where that is infinite or NaN.
  float lost_below = isinf(largest) || isnan(largest) ? 0.0 : largest * 1.4901161193847656e-08;
  float sum = 0.0;
  for (uint kk = 0u; kk < dims.k; ++kk) {
    float x = a[row * dims.k + kk];
    sum += (abs(x) < lost_below ? 0.0 : x) * b[kk * dims.n + col];
  }
  c[row * dims.n + col] = sum;
}
