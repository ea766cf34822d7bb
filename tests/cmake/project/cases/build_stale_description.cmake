# expect: build fails
# After build_checks_in_kernel: the DESCRIPTION changed, so the checked-in kernel no longer matches the spec,
# and with no KERNEL declared (and no model) there is nothing to check in instead.
# output: kernelgen: op 'negate': the op's declaration or reference changed since the kernel was generated
# output: kernelgen: op 'negate' has no kernel
# output: kernelgen_regenerate_negate
# output: KERNEL in kernelgen_add_op(negate ...)
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise, in f32"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
