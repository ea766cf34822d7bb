# expect: build fails
# After build_checks_in_kernel: the checked-in kernel.spv is edited behind the manifest's back. The declaration
# is the one it was checked in for, so only the tampering can fail the build.
# output: /generated/negate/kernel.spv does not match the hash in manifest.json
# output: kernelgen: op 'negate' has no kernel
# output: kernelgen_regenerate_negate
# output: KERNEL in kernelgen_add_op(negate ...)
file(APPEND "${KERNELGEN_GENERATED_DIR}/negate/kernel.spv" "!!!!")
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256])
