#version 450
// GELU's tanh approximation without a tanh: 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)), so
// y = x / (1 + exp(-2u)) with u = sqrt(2/pi) (x + 0.044715 x^3). For very negative finite x, exp(-2u)
// overflows to inf and y is -0; for large x, exp(-2u) is 0 and y is x: no inf / inf for any finite x.
// One vec4 per invocation, coalesced: a row of 1024 floats is 256 vec4s, one workgroup per row.
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.rows * 256u) return;
  vec4 v = x[i];
  vec4 u = 0.7978845608 * (v + 0.044715 * v * v * v);
  y[i] = v / (1.0 + exp(-2.0 * u));
}
