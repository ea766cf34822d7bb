# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/unknown_argument.cmake: STRIDE: unknown argument
# output: Fix: use only REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, SCRATCH, DIMS, BENCH_DIMS, CPU_BENCH_DIMS,
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  STRIDE      2
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
