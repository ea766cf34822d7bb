# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/too_many_tolerances.cmake: TOLERANCE: takes one or two numbers, got 3
# output: Fix: write TOLERANCE <atol> [<rtol>]
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  TOLERANCE   1e-4 1e-4 1e-4)
