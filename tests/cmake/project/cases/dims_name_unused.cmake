# expect: configure fails
# output: cases/dims_name_unused.cmake: DIMS: 'cols' is not used by any tensor
# output: Fix: remove it, or use it as an extent, e.g. x:f32[cols,1000]
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[rows,4]
  OUTPUTS     y:f32[rows,4]
  DIMS        rows=1,5 cols=2)
