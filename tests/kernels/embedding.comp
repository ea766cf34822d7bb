#version 450
// A correct embedding lookup: out[i, :] = table[ids[i], :], table:f32[vocab,16], ids:i32[n] (INDEX of vocab),
// out:f32[n,16]. One output element per invocation.
// kernelgen: dispatch (n * 16 + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint vocab; uint n; } dims;

layout(set = 0, binding = 0, std430) readonly buffer Table { float table[]; };
layout(set = 0, binding = 1, std430) readonly buffer Ids { int ids[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Out { float outputs[]; };

const uint kDim = 16;

void main() {
  uint e = gl_GlobalInvocationID.x;
  if (e >= dims.n * kDim) return;
  uint i = e / kDim, c = e % kDim;
  int id = ids[i];
  outputs[e] = table[uint(id) * kDim + c];
}
