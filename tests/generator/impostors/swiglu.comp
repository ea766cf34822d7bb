#version 450
// Really gelu(gate) * up (GeGLU, tanh approximation), with swiglu's interface.
// kernelgen: dispatch (rows * cols + 255) / 256 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Gate { float gate[]; };
layout(set = 0, binding = 1, std430) readonly buffer Up { float up[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.rows * dims.cols) return;
  float g = gate[i];
  float inner = 0.7978845608 * (g + 0.044715 * g * g * g);
  y[i] = 0.5 * g * (1.0 + tanh(clamp(inner, -15.0, 15.0))) * up[i];
}
