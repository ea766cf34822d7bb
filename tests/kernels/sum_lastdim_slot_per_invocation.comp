#version 450
// A sum_lastdim (y[r] = sum of row r of x:f32[rows,cols]) right at any subgroup size: its shared scratch holds
// one slot per invocation, enough for subgroups of 1, and its last step adds gl_NumSubgroups of them. The
// correct twin of sum_lastdim_slots_for_subgroups_of_8.comp.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
const uint WG = 64u;
shared float partial[WG];

void main() {
  const uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x;
  float sum = 0.0;
  for (uint c = tid; c < dims.cols; c += WG) sum += x[row * dims.cols + c];
  sum = subgroupAdd(sum);
  if (subgroupElect()) partial[gl_SubgroupID] = sum;
  barrier();
  if (tid == 0u) {
    float total = 0.0;
    for (uint i = 0u; i < gl_NumSubgroups; ++i) total += partial[i];
    y[row] = total;
  }
}
