# expect: configure fails
# output: cases/flops_unknown_dim.cmake: FLOPS: 'cols' in '2*rows*cols' is not a dim of the op (dims: rows)
# output: Fix: use numbers and the dims of the op's shapes
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[rows,4]
  OUTPUTS     y:f32[rows,4]
  DIMS        rows=1,5
  FLOPS       2*rows*cols)
