# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/tolerance_ulp_not_a_half.cmake: TOLERANCE: '0.3ulp' is not a positive multiple of 0.5ulp
# output: Fix: write e.g. TOLERANCE 0.5ulp (correctly rounded) or TOLERANCE 1ulp, alone
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:bf16[4]
  OUTPUTS     y:bf16[4]
  TOLERANCE   0.3ulp)
