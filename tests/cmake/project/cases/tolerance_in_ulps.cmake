# expect: configure succeeds
# TOLERANCE in ulps of the output's dtype: 0.5ulp asks the correctly rounded value.
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:bf16[4]
  OUTPUTS     y:bf16[4]
  TOLERANCE   0.5ulp)
