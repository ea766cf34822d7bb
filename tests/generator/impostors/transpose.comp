#version 450
// Really a reshape (y[i] = x[i], the floats copied in order) with transpose's interface: the two agree wherever
// rows or cols is 1.
// kernelgen: dispatch (cols + 31) / 32 (rows + 31) / 32 1
layout(local_size_x = 32, local_size_y = 8, local_size_z = 1) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint c = gl_WorkGroupID.x * 32u + gl_LocalInvocationID.x;
  for (uint j = 0u; j < 32u; j += 8u) {
    uint r = gl_WorkGroupID.y * 32u + gl_LocalInvocationID.y + j;
    if (r < dims.rows && c < dims.cols) y[r * dims.cols + c] = x[r * dims.cols + c];
  }
}
