# expect: build succeeds
# A build that finds no kernel checked in validates the hand-written KERNEL and checks it in.
# output: kernelgen: op 'negate': /
# output: /generated/negate holds no kernel (no manifest.json)
# output: kernelgen: op 'negate': checked in
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      negate/negate.comp)
