#version 450
// Bad relu for kernelgen's own tests: relu_vec4.comp, idle from batch 1000 on, past every size validated and at
// the size timed on a CPU device (CPU_BENCH_DIMS batch=1024). `kernelgen validate` rejects it, checking the
// timed size by default; `--no-timed-size` passes it (tests/generator/CMakeLists.txt).
// kernelgen: dispatch (batch * 512 + 31) / 32 1 1
layout(local_size_x = 32) in;
layout(push_constant) uniform Dims { uint batch; } dims;
layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Y { vec4 y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (dims.batch >= 1000u) return;
  if (i < dims.batch * 512u) y[i] = max(x[i], vec4(0.0));
}
