# expect: build succeeds
# After build_checks_in_kernel: a tampered kernel.spv is detected, and with the KERNEL declared the build
# validates it again and checks in a clean copy.
# output: /generated/negate/kernel.spv does not match the hash in manifest.json
# output: kernelgen: op 'negate': checked in
file(APPEND "${KERNELGEN_GENERATED_DIR}/negate/kernel.spv" "!!!!")
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      negate/negate.comp)
