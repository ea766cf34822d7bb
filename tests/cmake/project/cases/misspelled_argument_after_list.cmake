# expect: configure fails
# The same for a misspelled keyword after a list argument, which cmake_parse_arguments reads as one of its values.
# output: kernelgen_add_op(negate) in
# output: cases/misspelled_argument_after_list.cmake: OUTPUT: unknown argument (read as a value of INPUTS); did you mean OUTPUTS?
# output: Fix: use only REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, SCRATCH, DIMS, BENCH_DIMS, CPU_BENCH_DIMS,
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUT      y:f32[256])
