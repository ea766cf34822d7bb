#version 450
// Bad rowsum over x:f32[rows,cols] for kernelgen's own tests. Expected: INCORRECT_NUMERICAL at the first size
// whose cols = 2 (mod 4). The twin of rowsum_by_fours.comp with one bug: the tail of two adds its first element
// only (a pair path that read one float where it meant a vec2). The catalog's cols (1, 5, 33, 300, 4100), every
// odd prime and the ragged size added for 64 invocations (97) leave a tail of 0, 1 or 3, where it is right.
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
  } else if (tail == 1) {
    sum += x[base + body];
  }
  y[r] = sum;
}
