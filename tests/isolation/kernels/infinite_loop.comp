#version 450
// A relu that never finishes: the loop's condition depends on the input and its body stores, so no compiler may
// remove it, and it holds for every input but one bit pattern no case draws (a NaN test, x == x, would let a case
// whose x[0] is NaN through). What a model's off-by-one loop bound can look like.
// lavapipe ends every loop after 65535 iterations (a kernel storing its iteration count read 65535 back, and a
// nested loop did not multiply that), so there each iteration is a chain of 512 dependent multiply-adds: the
// kernel outlasts any limit a test sets (its validation ran past a 60 s limit on lavapipe), where a GPU spins forever.
// kernelgen: dispatch 8 1 1
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) readonly buffer X { vec4 x[]; };
layout(set = 0, binding = 1, std430) buffer Y { vec4 y[]; };

#define STEP v = v * 0.999999 + 1.0;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP64 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
#define STEP512 STEP64 STEP64 STEP64 STEP64 STEP64 STEP64 STEP64 STEP64

void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 v = x[i % 4u];
  while (floatBitsToUint(x[0].x) != 0x12345679u) {
    STEP512
    y[i] = v;
  }
}
