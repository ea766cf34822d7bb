# expect: configure fails
# An unknown keyword after a list argument must not be read as one of its values.
# output: kernelgen_add_op(negate) in
# output: cases/unknown_argument_after_list.cmake: STRIDE: unknown argument (read as a value of INPUTS)
# output: Fix: use only REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, SCRATCH, DIMS, BENCH_DIMS, CPU_BENCH_DIMS,
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  STRIDE      2
  OUTPUTS     y:f32[256])
