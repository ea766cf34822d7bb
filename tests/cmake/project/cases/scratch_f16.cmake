# expect: configure fails
# output: cases/scratch_f16.cmake: SCRATCH: 'partial:f16[n]' is f16
# output: Fix: declare scratch as f32, i32 or u32 (32-bit elements: what atomic counters and partial sums use)
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[n]
  OUTPUTS     y:f32[n]
  SCRATCH     partial:f16[n]
  DIMS        n=1,5)
