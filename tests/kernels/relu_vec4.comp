#version 450
// A correct relu kept fixed for tests that edit it line by line (generated/relu/ may change on regeneration).
// relu over batch x 8x16x16 floats (2048 per batch item), four per invocation as vec4 loads and stores, in
// workgroups of 32: validation's largest sizes grow with the workgroup (a ragged batch of 49 here, 385 at 256),
// so it validates in well under half the time of the catalog's 256-wide kernel.
// kernelgen: dispatch (batch * 512 + 31) / 32 1 1
layout(local_size_x = 32) in;
layout(push_constant) uniform Dims { uint batch; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dims.batch * 512u) y[i] = max(x[i], vec4(0.0));
}
