# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/missing_reference.cmake: REFERENCE: file 'negate/no_such_reference.cpp' does not exist
# output: Fix: give a path relative to
kernelgen_add_op(negate
  REFERENCE   negate/no_such_reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
