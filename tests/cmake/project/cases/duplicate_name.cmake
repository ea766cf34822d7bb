# expect: configure fails
# output: kernelgen_add_op(negate) in
# output: cases/duplicate_name.cmake: name: op 'negate' is already declared in
# output: Fix: give each op a unique name
foreach(time 1 2)
  kernelgen_add_op(negate
    REFERENCE   negate/reference.cpp
    DESCRIPTION "y = -x, elementwise"
    INPUTS      x:f32[256]
    OUTPUTS     y:f32[256])
endforeach()
