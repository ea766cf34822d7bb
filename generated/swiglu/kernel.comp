#version 450
// y = silu(gate) * up = gate * (1 / (1 + exp(-gate))) * up, in the reference's order: four elements per
// invocation through vec4 views of the tensors where the element count is a multiple of 4, one at a time
// otherwise (every element then written, the last ragged ones too), in a grid-stride loop over at most 65535
// workgroups.
// kernelgen: dispatch min((rows * cols + 1023) / 1024, 65535) 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Gate { float gate[]; };
layout(set = 0, binding = 0, std430) readonly buffer Gate4 { vec4 gate4[]; };
layout(set = 0, binding = 1, std430) readonly buffer Up { float up[]; };
layout(set = 0, binding = 1, std430) readonly buffer Up4 { vec4 up4[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y4 { vec4 y4[]; };
void main() {
  uint total = dims.rows * dims.cols;
  uint stride = gl_NumWorkGroups.x * 256u;
  if (total % 4u == 0u) {
    for (uint i = gl_GlobalInvocationID.x; i < total / 4u; i += stride) {
      vec4 g = gate4[i];
      y4[i] = g * (1.0 / (1.0 + exp(-g))) * up4[i];
    }
  } else {
    for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
      float g = gate[i];
      y[i] = g * (1.0 / (1.0 + exp(-g))) * up[i];
    }
  }
}
