# expect: configure fails
# output: cases/dtype_bf16.cmake: INPUTS:
# output: bf16
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:bf16[4]
  OUTPUTS     y:bf16[4])
