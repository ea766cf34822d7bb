# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/malformed_shape.cmake: INPUTS: malformed shape [4,,8] in 'x:f32[4,,8]'
# output: Fix: list positive integer extents or dim names separated by commas, e.g. [4,8,16,16] or [rows,1000]
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[4,,8]
  OUTPUTS     y:f32[4,8])
