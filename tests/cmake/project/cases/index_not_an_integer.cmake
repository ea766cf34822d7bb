# expect: configure fails
# output: cases/index_not_an_integer.cmake: INDEX: 'x' is not an i32 or u32 input
# output: Fix: name an integer input, e.g. INPUTS ids:i32[n] with INDEX ids=vocab
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[n]
  OUTPUTS     y:f32[n]
  INDEX       x=vocab
  DIMS        n=1,5 vocab=3)
