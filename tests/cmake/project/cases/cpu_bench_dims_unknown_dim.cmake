# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: CPU_BENCH_DIMS: 'cols' is not used by any tensor
kernelgen_add_op(negate
  REFERENCE      negate/reference.cpp
  DESCRIPTION    "y = -x, elementwise"
  INPUTS         x:f32[rows]
  OUTPUTS        y:f32[rows]
  DIMS           rows=1,7
  BENCH_DIMS     rows=1048576
  CPU_BENCH_DIMS cols=1024)
