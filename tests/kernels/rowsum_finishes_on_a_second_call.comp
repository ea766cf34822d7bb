#version 450
// A rowsum (y[r] = sum of row r of x:f32[rows,300]) that is right only where its output was left by an earlier
// call on the same inputs: from 1000 rows on (past every size validated, at the size timed), a tile whose first
// row does not hold its sum yet gets that row alone, and the others only on the next call. A timing that reuses
// its outputs leaves a right output after its second run; one that poisons them before every run does not, and
// the timed output's check rejects it (tests/generator/timed_size_test.cpp).
// kernelgen: dispatch (rows + 63) / 64 1 1
layout(local_size_x = 64) in;
layout(push_constant) uniform Dims { uint rows; } dims;

layout(set = 0, binding = 0, std430) readonly buffer X { float x[]; };
layout(set = 0, binding = 1, std430) buffer Y { float y[]; };

const uint kColumns = 300;

shared bool first_row_done;

float row_sum(uint r) {
  float sum = 0.0;
  for (uint c = 0; c < kColumns; ++c) sum += x[r * kColumns + c];
  return sum;
}

void main() {
  const uint first = gl_WorkGroupID.x * 64u;
  if (gl_LocalInvocationID.x == 0u) first_row_done = dims.rows < 1000u || y[first] == row_sum(first);
  barrier();
  const uint r = gl_GlobalInvocationID.x;
  if (r >= dims.rows) return;
  if (first_row_done || r == first) y[r] = row_sum(r);
}
