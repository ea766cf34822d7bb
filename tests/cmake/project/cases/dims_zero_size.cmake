# expect: configure fails
# output: cases/dims_zero_size.cmake: DIMS: 'rows=0,5' is not dim=sizes with positive integer sizes
# output: Fix: write e.g. DIMS rows=1,5,64,333
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[rows,4]
  OUTPUTS     y:f32[rows,4]
  DIMS        rows=0,5)
