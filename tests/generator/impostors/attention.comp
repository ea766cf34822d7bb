#version 450
// Really causal attention (query i attends to keys 0..i only, as in a decoder) with attention's interface.
// kernelgen: dispatch (seq + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint seq; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Q { float q[]; };
layout(set = 0, binding = 1, std430) readonly buffer K { float k[]; };
layout(set = 0, binding = 2, std430) readonly buffer V { float v[]; };
layout(set = 0, binding = 3, std430) writeonly buffer O { float o[]; };

float score(uint i, uint j) {
  float s = 0.0;
  for (uint d = 0u; d < 64u; ++d) s += q[i * 64u + d] * k[j * 64u + d];
  return s * 0.125;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= dims.seq) return;
  float m = score(i, 0u);
  for (uint j = 1u; j <= i; ++j) m = max(m, score(i, j));
  float sum = 0.0;
  for (uint j = 0u; j <= i; ++j) sum += exp(score(i, j) - m);
  float acc[64];
  for (uint d = 0u; d < 64u; ++d) acc[d] = 0.0;
  for (uint j = 0u; j <= i; ++j) {
    float p = exp(score(i, j) - m);
    for (uint d = 0u; d < 64u; ++d) acc[d] += p * v[j * 64u + d];
  }
  for (uint d = 0u; d < 64u; ++d) o[i * 64u + d] = acc[d] / sum;
}
