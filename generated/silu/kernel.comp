#version 450
// y = x * sigmoid(x) with the stable sigmoid: e = exp(-|x|) never overflows; sigmoid is 1 / (1 + e) for
// x >= 0 and e / (1 + e) for x < 0.
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
  vec4 e = exp(-abs(v));
  vec4 s = 1.0 / (1.0 + e);
  y[i] = v * mix(e * s, s, greaterThanEqual(v, vec4(0.0)));
}
