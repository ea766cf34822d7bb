# expect: build fails
# After build_checks_in_kernel: a checked-in kernel.spv that went missing is noticed, though the declaration
# did not change.
# output: /generated/negate/kernel.spv
# output: kernelgen: op 'negate' has no kernel
file(REMOVE "${KERNELGEN_GENERATED_DIR}/negate/kernel.spv")
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
