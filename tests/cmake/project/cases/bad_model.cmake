# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/bad_model.cmake: MODEL: 'gpt-4o' is not provider/model
# output: Fix: write e.g. MODEL openai/gpt-4o
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  MODEL       gpt-4o)
