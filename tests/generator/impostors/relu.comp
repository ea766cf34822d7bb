#version 450
// Really leaky_relu (y = x for x > 0, else 0.01 x) with relu's interface: relu and it agree where x >= 0.
// kernelgen: dispatch (batch * 512 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], 0.01 * x[i]);
}
