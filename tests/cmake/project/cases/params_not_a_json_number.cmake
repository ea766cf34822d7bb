# expect: configure fails
# A number JSON cannot hold would make an invalid spec; it is refused at the declaration.
# output: kernelgen_add_op(negate) in
# output: cases/params_not_a_json_number.cmake: PARAMS: value of 'alpha' is not a number: '.5'
# output: Fix: write numbers as JSON does, e.g. alpha=0.1
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  PARAMS      alpha=.5)
