# expect: configure fails
# output: cases/scratch_own_dim.cmake: SCRATCH: 'splits' in 'partial:f32[n,splits]' is not a dim of the inputs or outputs
# output: Fix: size scratch by numbers and the dims the caller gives, e.g. SCRATCH partial:f32[rows,64]
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[n]
  OUTPUTS     y:f32[n]
  SCRATCH     partial:f32[n,splits]
  DIMS        n=1,5)
