# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/bad_tolerance.cmake: TOLERANCE: '-1e-4' is not a non-negative number
# output: Fix: write e.g. TOLERANCE 1e-4 1e-4
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  TOLERANCE   -1e-4)
