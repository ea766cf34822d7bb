#version 450
// y[r] = sum of the 300 floats of row r; one invocation per row, as many rows as the call has (dims.rows).
// kernelgen: dispatch (rows + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint row = gl_GlobalInvocationID.x;
  if (row >= dims.rows) return;
  float sum = 0.0;
  for (uint i = 0u; i < 300u; ++i) sum += x[row * 300u + i];
  y[row] = sum;
}
