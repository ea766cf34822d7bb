# expect: build fails
# After build_checks_in_kernel: the reference's text changed, so the checked-in kernel no longer matches the
# spec, and with no KERNEL declared there is nothing to check in instead.
# output: kernelgen: op 'negate': the op's declaration or reference changed since the kernel was generated
# output: kernelgen: op 'negate' has no kernel to check in.
# output: To check a kernel in, declare a hand-written one with KERNEL in kernelgen_add_op(negate ...) and build again
kernelgen_add_op(negate
  REFERENCE   negate/reference_rewritten.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
