#version 450
// A wrong variant kept to show what validation over many sizes catches: it hard-codes 64 rows, so it is
// right only when a call has exactly 64 (`kernelgen validate` rejects it; see CMakeLists.txt).
// kernelgen: dispatch 1 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint row = gl_GlobalInvocationID.x;
  float sum = 0.0;
  for (uint i = 0u; i < 300u; ++i) sum += x[row * 300u + i];
  y[row] = sum;
}
