#version 450
// Really 2x2 average pooling, stride 2 (avg_pool2d) with maxpool2d's interface: maxpool2d takes each window's maximum.
// kernelgen: dispatch n * 49 1 1
layout(local_size_x = 8, local_size_y = 8, local_size_z = 4) in;
layout(push_constant) uniform Dims { uint n; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x4[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y4[]; };

void main() {
  uint i = gl_WorkGroupID.x * 256u + gl_LocalInvocationIndex;
  if (i >= dims.n * 12544u) return;
  uint row = i / 7u;
  uint base = row * 28u + 2u * (i - row * 7u);
  vec4 a0 = x4[base], a1 = x4[base + 1u], b0 = x4[base + 14u], b1 = x4[base + 15u];
  y4[i] = 0.25 * vec4(a0.x + a0.y + b0.x + b0.y, a0.z + a0.w + b0.z + b0.w, a1.x + a1.y + b1.x + b1.y,
                      a1.z + a1.w + b1.z + b1.w);
}
