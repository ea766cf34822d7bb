#version 450
// A correct relu whose input is declared twice, as views of two element types at one binding (vec4 for whole
// groups of four, float for single elements), as a kernel reads wide where it can and element by element at an
// edge. Every view of an input is readonly. 2048 floats per batch item; the first invocation of each group of
// four reads through the vec4 view, the others through the float view. Workgroups of 64: validation's largest
// sizes grow with the workgroup (a ragged batch of 97 here, 385 at 256), and one float an invocation at the
// timed batch=1024 stays within the 65535 workgroups a dispatch may have.
// kernelgen: dispatch (batch * 2048 + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 0, std430) readonly buffer X4 { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.batch * 2048u) return;
  float value = (i % 4u) == 0u ? x4[i / 4u].x : x[i];
  y[i] = max(value, 0.0);
}
