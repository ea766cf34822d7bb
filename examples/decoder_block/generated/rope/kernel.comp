#version 450
// Rotary embedding, one pair (x1[i], x2[i]) of a head per invocation, both outputs from one read of each:
// y[p] = x[p] * cos[p] + x[1 - p] * sin[p] with the table's own sign for each half (sin[t, 0, :] holds -sin), the
// product with cos first, as the reference. Workgroups along x cover a token's heads * pairs pairs, one row of
// workgroups per token.
// kernelgen: dispatch (heads * pairs + 63) / 64 tokens 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint tokens; uint heads; uint pairs; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) readonly buffer Cos { float cos_table[]; };
layout(set = 0, binding = 2, std430) readonly buffer Sin { float sin_table[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Y { float y[]; };
void main() {
  uint t = gl_WorkGroupID.y, j = gl_GlobalInvocationID.x, P = dims.pairs;
  if (j >= dims.heads * P) return;
  uint h = j / P, i = j % P;
  uint base = (t * dims.heads + h) * 2u * P + i, table = t * 2u * P + i;
  float x1 = x[base], x2 = x[base + P];
  y[base] = x1 * cos_table[table] + x2 * sin_table[table];
  y[base + P] = x2 * cos_table[table + P] + x1 * sin_table[table + P];
}
