#version 450
// Bad sum_lastdim (y[r] = sum of row r of x:f32[rows,cols]) for kernelgen's own tests. Expected: rejected at
// subgroups of 4 (lavapipe's second width, LP_NATIVE_VECTOR_WIDTH=128), passed at 8 (its default on AVX2) and 32.
// The twin of sum_lastdim_slot_per_invocation.comp with one bug: its shared scratch holds one slot per subgroup
// for subgroups of at least 8 (WG / 8 slots), and its last step adds that many. With 4-wide subgroups there are
// 16 subgroups; those past the scratch keep their sums (stored, they would overflow it: undefined, so this
// kernel is the defined form of the same bug) and the row's total misses half the row.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// kernelgen: dispatch rows 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
const uint WG = 64u;
const uint kSlots = WG / 8u;  // "subgroups are at least 8 wide"
shared float partial[kSlots];

void main() {
  const uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x;
  float sum = 0.0;
  for (uint c = tid; c < dims.cols; c += WG) sum += x[row * dims.cols + c];
  sum = subgroupAdd(sum);
  if (subgroupElect() && gl_SubgroupID < kSlots) partial[gl_SubgroupID] = sum;
  barrier();
  if (tid == 0u) {
    float total = 0.0;
    for (uint i = 0u; i < kSlots && i < gl_NumSubgroups; ++i) total += partial[i];
    y[row] = total;
  }
}
