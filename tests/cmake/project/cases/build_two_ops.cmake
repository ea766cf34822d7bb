# expect: build succeeds
# Two ops, each with its reference and a hand-written KERNEL, for touch_one_reference.cmake: it builds this,
# touches one reference and checks what the next build re-runs. The references are copies in the build tree,
# so that the test touches no file of the source tree.
# output: kernelgen: op 'negate': checked in
# output: kernelgen: op 'twice': checked in
foreach(op IN ITEMS negate twice)
  configure_file(${op}/reference.cpp "${CMAKE_BINARY_DIR}/references/${op}.cpp" COPYONLY)
endforeach()
kernelgen_add_op(negate
  REFERENCE   "${CMAKE_BINARY_DIR}/references/negate.cpp"
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      negate/negate.comp)
kernelgen_add_op(twice
  REFERENCE   "${CMAKE_BINARY_DIR}/references/twice.cpp"
  DESCRIPTION "y = 2 * x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      twice/twice.comp)
