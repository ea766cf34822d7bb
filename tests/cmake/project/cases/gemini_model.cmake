# expect: configure succeeds
# Gemini, through Google's OpenAI-compatible endpoint, is a provider an op may name.
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  MODEL       gemini/gemini-2.5-flash)
