# expect: configure succeeds
# Every argument, each well formed.
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[2,128]
  OUTPUTS     y:f32[2,128]
  PARAMS      alpha=1 beta=-2.5e-3
  TOLERANCE   1e-4 1e-4
  FLOPS       2*128
  SAMPLES 2 ROUNDS 3 OPT_ROUNDS 2 BEAM 2 MODEL openai/gpt-4o BUDGET_USD 0.50
  KERNEL      negate/negate.comp)
