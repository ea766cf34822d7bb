# expect: configure fails
# An unknown argument close to a keyword is named with the keyword it is likely a misspelling of.
# output: kernelgen_add_op(negate) in
# output: cases/misspelled_argument.cmake: DIM: unknown argument; did you mean DIMS?
# output: Fix: use only REFERENCE, DESCRIPTION, INPUTS, OUTPUTS, SCRATCH, DIMS, BENCH_DIMS, CPU_BENCH_DIMS,
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  DIM         rows=1,5
  INPUTS      x:f32[rows]
  OUTPUTS     y:f32[rows])
