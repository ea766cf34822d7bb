# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/dims_without_sizes.cmake: DIMS: dim 'rows' is used in a shape but has no sizes
# output: Fix: list the sizes to validate, e.g. DIMS rows=1,7,64,333
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[rows,4]
  OUTPUTS     y:f32[rows,4])
