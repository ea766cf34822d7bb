#version 450
// out[t, :] = table[ids[t], :], 64 floats a row; one invocation per output float, a workgroup per 4 tokens.
// kernelgen: dispatch (n + 3) / 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint vocab; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Table { float table[]; };
layout(set = 0, binding = 1, std430) readonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Out { float out_rows[]; };

void main() {
  uint token = gl_GlobalInvocationID.x / 64u, column = gl_GlobalInvocationID.x % 64u;
  if (token >= dims.n) return;
  out_rows[token * 64u + column] = table[uint(ids[token]) * 64u + column];
}
