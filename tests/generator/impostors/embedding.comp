#version 450
// Really the scaled embedding of a transformer's input (y[t, :] = sqrt(1024) * table[ids[t], :] = 32 * the row)
// with embedding's interface: the two agree wherever the row is 0.
// kernelgen: dispatch (n + 3) / 4 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint vocab; uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Table { vec4 table[]; };
layout(set = 0, binding = 1, std430) readonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { vec4 y[]; };

void main() {
  uint i = gl_LocalInvocationID.x;
  for (uint t = gl_WorkGroupID.x * 4u; t < min(gl_WorkGroupID.x * 4u + 4u, dims.n); ++t)
    y[t * 256u + i] = 32.0 * table[uint(ids[t]) * 256u + i];
}
