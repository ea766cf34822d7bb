#version 450
// Four coalesced vec4s per invocation: a 256-wide workgroup covers four rows (1024 vec4s), and invocation l
// adds vec4s l, l + 256, l + 512 and l + 768 of them, so each of its four steps is one contiguous 4 KiB
// access by the workgroup, with four independent loads in flight per invocation.
// kernelgen: dispatch (rows + 3) / 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Y { vec4 y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Z { vec4 z[]; };
void main() {
  uint total = dims.rows * 256u;
  uint base = gl_WorkGroupID.x * 1024u + gl_LocalInvocationID.x;
  for (uint j = 0u; j < 4u; ++j) {
    uint i = base + j * 256u;
    if (i < total) z[i] = x[i] + y[i];
  }
}
