# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/unknown_dtype.cmake: INPUTS: unknown dtype 'f64' in 'x:f64[4]'
# output: Fix: use one of: f32 f16 i32 u32 i8 u8 bf16
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f64[4]
  OUTPUTS     y:f32[4])
