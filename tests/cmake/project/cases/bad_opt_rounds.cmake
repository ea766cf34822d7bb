# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/bad_opt_rounds.cmake: OPT_ROUNDS: '-1' is not a whole number
# output: Fix: write e.g. OPT_ROUNDS 2 (0: none)
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  OPT_ROUNDS  -1)
