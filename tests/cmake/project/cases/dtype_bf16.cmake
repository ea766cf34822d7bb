# expect: configure succeeds
# bf16 is a storage dtype (runtime/include/kernelgen/dtypes.def): its kernels read uint16_t and widen it.
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:bf16[4]
  OUTPUTS     y:bf16[4])
