#version 450
// Really x - y, with add's interface (rows of 1024 floats).
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Yin { vec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { vec4 z[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.rows * 256u) z[i] = x[i] - y[i];
}
