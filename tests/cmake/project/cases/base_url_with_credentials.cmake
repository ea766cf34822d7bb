# expect: configure fails
# A base URL with credentials in it would go on the build step's command line and stay in CMakeCache.txt: the
# configuration stops, names the setting and the key variable to use instead, and takes the URL out of the cache.
# output: kernelgen: OPENAI_BASE_URL holds credentials (user:password@ before the host)
# output: kernelgen removed it from the cache
# output: put the key in OPENAI_API_KEY in the environment or a .env file
set(OPENAI_BASE_URL "https://user:pass-SECRET@gateway.example.com/v1" CACHE STRING "")
kernelgen_add_op(negate
  REFERENCE   negate/reference.cpp
  DESCRIPTION "y = -x, elementwise"
  INPUTS      x:f32[256]
  OUTPUTS     y:f32[256]
  KERNEL      negate/negate.comp)
