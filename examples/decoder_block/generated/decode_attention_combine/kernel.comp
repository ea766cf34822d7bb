#version 450
// Flash-decoding's second pass (ops/decode_attention_combine/reference.cpp states the op): a workgroup of 64
// invocations takes one head; each invocation reads the row's lse values (one per split), their max M
// and the weights exp(lse - M) in order, then adds up the splits' partial rows for its dims, 64 apart.
// kernelgen: dispatch heads 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint heads; uint splits; uint head_dim; } dims;
layout(set = 0, binding = 0, std430) readonly buffer Partial { float partial[]; };
layout(set = 0, binding = 1, std430) readonly buffer Lse { float lse[]; };
layout(set = 0, binding = 2, std430) writeonly buffer O { float o[]; };

const uint NT = 64u;

void main() {
  const uint row = gl_WorkGroupID.x, i = gl_LocalInvocationIndex;
  const uint S = dims.splits, D = dims.head_dim;
  float M = uintBitsToFloat(0xff800000u);
  bool nan = false;
  for (uint s = 0u; s < S; ++s) {
    const float x = lse[row * S + s];
    nan = nan || isnan(x);
    M = max(M, x);
  }
  for (uint d = i; d < D; d += NT) {
    float value;
    if (nan) {
      value = uintBitsToFloat(0x7fc00000u);
    } else if (M == uintBitsToFloat(0xff800000u)) {
      value = 0.0;
    } else {
      float total = 0.0, sum = 0.0;
      for (uint s = 0u; s < S; ++s) {
        float w = exp(lse[row * S + s] - M);
        if (w < 1.1754943508222875e-38) w = 0.0;
        total += w;
        sum += w * partial[(row * S + s) * D + d];
      }
      value = sum / total;
    }
    o[row * D + d] = value;
  }
}
