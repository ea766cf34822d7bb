# expect: configure succeeds
# SCRATCH: in the spec after the outputs, sized by the call's dims; the wrapper's call takes x and y alone (two
# buffers), and the scratch's bytes are the wrapper's own to allocate.
# output: "scratch": [{"name":"partial","dtype":"f32","shape":["n",64]},{"name":"count","dtype":"u32","shape":[1]}],
# output: static constexpr std::size_t binding_count = 2;
# output: void operator()(const Dims& dims, const Buffer& x, Buffer& y);
# output: static std::size_t partial_bytes(const Dims& dims) { return kernelgen::tensor_bytes(name, "partial:f32[n,64]", partial_shape(dims), 4); }
# output: static constexpr std::size_t count_bytes = 4;
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[n]
  OUTPUTS     y:f32[n]
  SCRATCH     partial:f32[n,64] count:u32[1]
  DIMS        n=1,5
  KERNEL      negate/negate.comp)
file(READ "${CMAKE_BINARY_DIR}/kernelgen/negate/spec.json" spec)
file(READ "${CMAKE_BINARY_DIR}/kernelgen/negate/include/kernelgen/ops/negate.hpp" header)
message(STATUS "spec.json:\n${spec}\nnegate.hpp:\n${header}")
