# expect: configure succeeds
# A DESCRIPTION that ends in a backslash: the header's // comment holds it without one, which would continue the
# comment onto the header's next line (an #include) and comment that out.
# output: // y = -x, elementwise, \ in the middle #include <kernelgen/dim_expression.hpp>
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise, \\ in the middle \\"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      negate/negate.comp)
file(READ "${CMAKE_BINARY_DIR}/kernelgen/negate/include/kernelgen/ops/negate.hpp" header)
message(STATUS "negate.hpp:\n${header}")
