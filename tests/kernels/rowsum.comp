#version 450
// A correct rowsum (y[r] = sum of row r of x:f32[rows,300]) kept fixed for the contract v2 tests, which edit
// it line by line. One row per invocation, summed left to right as the test's reference does.
// kernelgen: dispatch (rows + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

const uint kColumns = 300;

void main() {
  uint r = gl_GlobalInvocationID.x;
  if (r >= dims.rows) return;
  float sum = 0.0;
  for (uint c = 0; c < kColumns; ++c) sum += x[r * kColumns + c];
  y[r] = sum;
}
