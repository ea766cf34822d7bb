# The settings kernelgen_add_op() reads, as cache entries a project sets with -D. Included by kernelgen's own
# CMakeLists.txt and by the installed KernelGenConfig.cmake, so that both ways of getting kernelgen offer them.
option(KERNELGEN_BUILD_OP_TESTS "Build a GoogleTest per declared op, registered with ctest (label kernelgen)" ON)
option(KERNELGEN_BUILD_BENCHMARKS "Build each op's generated Google Benchmark target" ON)
option(KERNELGEN_OFFLINE "Never ask a live model: a missing or stale kernel fails the build with instructions" OFF)
set(KERNELGEN_MODEL "" CACHE STRING "provider/model for ops without MODEL (openai/..., anthropic/..., gemini/..., replay)")
set(KERNELGEN_CASSETTE_DIR "" CACHE PATH "Folder of <op>.json cassettes to replay (KERNELGEN_MODEL=replay) or record")
set(KERNELGEN_CACHE_DIR "" CACHE PATH "The candidate log (c_/r_ records); default <build>/kernelgen/candidates")
