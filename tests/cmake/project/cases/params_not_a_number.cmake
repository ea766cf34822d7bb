# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/params_not_a_number.cmake: PARAMS: value of 'alpha' is not a number: 'fast'
# output: Fix: write numbers as JSON does, e.g. alpha=0.1
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  PARAMS      beta=1 alpha=fast)
