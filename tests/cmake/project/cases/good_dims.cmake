# expect: configure succeeds
# Contract 2: dims named n and y (which CMake's if() reads as false), f16 and i32 tensors, an INDEX bound met
# only in INDEX, BENCH_DIMS, CPU_BENCH_DIMS and a FLOPS expression. The push-constant order is the shapes' dims in order of
# first appearance (inputs, then outputs), then dims that only an INDEX bound names.
# output: "dims": {"n":[1,7],"y":[2,3],"vocab":[4,9]}
# output: "bench_dims": {"n":4096}
# output: "cpu_bench_dims": {"n":64,"vocab":5}
# output: "flops": "n*y"
# output: struct Dims { uint32_t n = 0; uint32_t y = 0; uint32_t vocab = 0; };
# output: static std::size_t out_bytes(const Dims& dims) { return kernelgen::tensor_bytes(name, "out:f16[n,y]", out_shape(dims), 2); }
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "out[i, j] = -scale[j] * ids[i], with ids in [0, vocab)"
  INPUTS      ids:i32[n] scale:f16[y]
  OUTPUTS     out:f16[n,y]
  INDEX       ids=vocab
  DIMS        y=2,3 n=1,7 vocab=4,9
  BENCH_DIMS  n=4096
  CPU_BENCH_DIMS n=64 vocab=5
  FLOPS       n*y
  KERNEL      negate/negate.comp)
file(READ "${CMAKE_BINARY_DIR}/kernelgen/negate/spec.json" spec)
file(READ "${CMAKE_BINARY_DIR}/kernelgen/negate/include/kernelgen/ops/negate.hpp" header)
message(STATUS "spec.json:\n${spec}\nnegate.hpp:\n${header}")
