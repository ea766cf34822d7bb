#version 450
// A row softmax (y = exp(x - max) / sum, x:f32[rows,64]), one row per invocation: the correct twin of
// softmax_skips_max_above_1000_rows.comp.
// kernelgen: dispatch (rows + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint kColumns = 64;

void main() {
  const uint r = gl_GlobalInvocationID.x;
  if (r >= dims.rows) return;
  float m = x[r * kColumns];
  for (uint c = 1; c < kColumns; ++c) m = max(m, x[r * kColumns + c]);
  float sum = 0.0;
  for (uint c = 0; c < kColumns; ++c) sum += exp(x[r * kColumns + c] - m);
  for (uint c = 0; c < kColumns; ++c) y[r * kColumns + c] = exp(x[r * kColumns + c] - m) / sum;
}
