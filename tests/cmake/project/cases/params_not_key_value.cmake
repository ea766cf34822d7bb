# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/params_not_key_value.cmake: PARAMS: 'alpha' is not key=value
# output: Fix: write e.g. PARAMS stride=1 padding=0
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  PARAMS      alpha)
