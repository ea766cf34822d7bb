#version 450
// A correct rowsum over x:f32[rows,cols] (both dims symbolic), the twin of rowsum_by_fours_pair_tail.comp. One
// row per invocation, four elements a step, then a tail of 3, 2 or 1 handled by its own path; each element is
// added left to right, as the test's reference sums a row.
// kernelgen: dispatch (rows + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint r = gl_GlobalInvocationID.x;
  if (r >= dims.rows) return;
  uint base = r * dims.cols;
  uint body = dims.cols & ~3u;
  float sum = 0.0;
  for (uint c = 0; c < body; c += 4) {
    sum += x[base + c];
    sum += x[base + c + 1];
    sum += x[base + c + 2];
    sum += x[base + c + 3];
  }
  uint tail = dims.cols - body;
  if (tail == 3) {
    sum += x[base + body];
    sum += x[base + body + 1];
    sum += x[base + body + 2];
  } else if (tail == 2) {
    sum += x[base + body];
    sum += x[base + body + 1];
  } else if (tail == 1) {
    sum += x[base + body];
  }
  y[r] = sum;
}
