# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/missing_outputs.cmake: OUTPUTS: missing
# output: Fix: every op needs REFERENCE, DESCRIPTION and OUTPUTS
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256])
