#version 450
// Really log_softmax, y = x - max - log(sum of exp(x - max)), with softmax's interface: the log of softmax's y.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
shared float red[256];
void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  float m = uintBitsToFloat(0xff800000u);
  for (uint c = tid; c < cols; c += 256u) m = max(m, x[base + c]);
  m = subgroupMax(m);
  if (subgroupElect()) red[gl_SubgroupID] = m;
  barrier();
  m = red[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) m = max(m, red[i]);
  barrier();  // every invocation has read the max before red[] is reused for the sums
  float sum = 0.0;
  for (uint c = tid; c < cols; c += 256u) sum += exp(x[base + c] - m);
  sum = subgroupAdd(sum);
  if (subgroupElect()) red[gl_SubgroupID] = sum;
  barrier();
  sum = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) sum += red[i];
  float lse = log(sum);
  for (uint c = tid; c < cols; c += 256u) y[base + c] = x[base + c] - m - lse;
}
