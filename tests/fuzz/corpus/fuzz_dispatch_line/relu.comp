#version 450
// Four floats per invocation as vec4 loads and stores: a batch is 2048 floats, 512 vec4s.
// kernelgen: dispatch (batch * 512 + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], vec4(0.0));
}
