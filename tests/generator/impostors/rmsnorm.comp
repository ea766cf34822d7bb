#version 450
// Really x / sqrt(mean(x^2) + eps) without the weight, with rmsnorm's interface: the two agree where weight is 1.
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { float w[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Y { float y[]; };
shared float buf[256];
void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  float ss = 0.0;
  for (uint c = tid; c < cols; c += 256u) ss += x[base + c] * x[base + c];
  buf[tid] = ss;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    barrier();
  }
  float rstd = 1.0 / sqrt(buf[0] / float(cols) + 1e-6);
  for (uint c = tid; c < cols; c += 256u) y[base + c] = x[base + c] * rstd;
}
