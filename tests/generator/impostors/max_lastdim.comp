#version 450
// Really max over c of |x[r, c]| (the infinity norm of each row) with max_lastdim's interface: the two agree
// on rows whose largest magnitude is positive.
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { float y[]; };
shared float buf[256];
shared bool saw_nan[256];
void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x;
  float m = uintBitsToFloat(0xff800000u);  // -inf: the identity of max
  bool nan = false;
  for (uint c = tid; c < dims.cols; c += 256u) {
    float v = abs(x[row * dims.cols + c]);
    nan = nan || isnan(v);
    m = max(m, v);
  }
  buf[tid] = m;
  saw_nan[tid] = nan;
  barrier();
  for (uint stride = 128u; stride > 0u; stride >>= 1) {
    if (tid < stride) {
      buf[tid] = max(buf[tid], buf[tid + stride]);
      saw_nan[tid] = saw_nan[tid] || saw_nan[tid + stride];
    }
    barrier();
  }
  if (tid == 0u) y[row] = saw_nan[0] ? uintBitsToFloat(0x7fc00000u) : buf[0];
}
