# kernelgen_add_op(): declare a GPU operation whose Vulkan compute kernel kernelgen checks in under
# generated/<op>/ and embeds into a C++ wrapper library.
#
#   kernelgen_add_op(<name>
#     REFERENCE   <file.cpp>           C++ (Eigen) reference defining the op: KERNELGEN_REFERENCE(<name>) { ... }
#     DESCRIPTION "<text>"             what the op computes, in a sentence
#     INPUTS      <tensor>...          e.g. x:f32[rows,1000]   (name:dtype[extents], row-major; an extent is a
#                                      number or a symbolic dim; dtypes in runtime/include/kernelgen/dtypes.def)
#     OUTPUTS     <tensor>...          at least one
#     [SCRATCH    <tensor>...]         memory the kernel's workgroups share within one call (partial results,
#                                      u32 arrival counters): bound after the outputs, f32/i32/u32, sized by
#                                      numbers and the inputs' and outputs' dims; zero when every call starts,
#                                      and the kernel leaves it so; never compared; the wrapper allocates it
#                                      (docs/kernel-contract.md)
#     [DIMS       dim=s1,s2,...]       every symbolic dim with the sizes validated, e.g. rows=1,5,64,333
#     [BENCH_DIMS dim=size...]         the size benchmarked and timed (default: each dim's largest DIMS)
#     [CPU_BENCH_DIMS dim=size...]     the same on a CPU device such as lavapipe (default: BENCH_DIMS)
#     [INDEX      tensor=extent...]    an i32/u32 input of indices into an extent (a dim or a number)
#     [PARAMS     key=value...]        numeric hyperparameters, passed to the reference as `params`
#     [TOLERANCE  <atol> [<rtol>]]     default per output dtype (f32 1e-5 1e-5, f16 1e-3 1e-3, integers exact)
#     [TOLERANCE  <n>ulp]              or in ulps of the output dtype, for one rounding of an exact value:
#                                      0.5ulp asks the correctly rounded (nearest, ties to even) value
#     [FLOPS      <expression>]        floating-point operations per call over the dims, e.g. 2*rows*1000
#     [BYTES      <expression>]        bytes moved per call (default: every tensor once), for GB/s
#     [SAMPLES n] [ROUNDS n] [MODEL provider/model] [BUDGET_USD x]    LLM search settings
#     [OPT_ROUNDS n] [BEAM k]          optimisation rounds after the first correct kernel (default 0), each
#                                      asking for SAMPLES ideas per parent and one kernel per idea; the
#                                      fastest k correct kernels are the next round's parents (default 1)
#     [KERNEL     <file.comp>]         a hand-written candidate, validated like any other
#     [VARIANTS   name=<file.comp>...]) kernels for devices with what others lack (cooperative matrices), in
#                                      order of preference: each is checked in under generated/<name>/variants/,
#                                      validated on the validation devices that can run it, and run by the
#                                      wrapper on a device that can; elsewhere the op's own kernel runs
#
# Creates
#   kernelgen::<name>           library: #include <kernelgen/ops/<name>.hpp>, class kernelgen::ops::<name>
#   test_kernelgen_<name>       GoogleTest revalidating the kernel on fresh inputs (ctest label `kernelgen`)
#   bench_kernelgen_<name>      Google Benchmark timing it with GPU timestamps
#   kernelgen_regenerate_<name> target that searches for the kernel again (and kernelgen_regenerate for all)
#   kernelgen_reference_module_<name>
#                               the reference as a module the tool loads: <build>/kernelgen/<name>/reference.so
#
# In kernelgen's tree (add_subdirectory, FetchContent) or from an install (find_package(KernelGen)); either way
# the build step runs the tool kernelgen::tool.
#
# The kernel is checked at build time, never at configure time: the build fails with instructions when
# generated/<name>/ is missing, corrupt or stale and no candidate passes. A kernel.spv that its kernel.comp
# does not compile to is corrupt; one that another glslang compiled fails too, unless KERNELGEN_ALLOW_OTHER_GLSLANG
# is ON: then kernel.comp is built as this glslang compiles it (docs/validation.md). Set KERNELGEN_GENERATED_DIR
# to keep kernels somewhere other than ${PROJECT_SOURCE_DIR}/generated.
include_guard(GLOBAL)
# The steps of kernelgen_add_op, one file a concept.
foreach(_kernelgen_part arguments shapes spec interface targets)
  include("${CMAKE_CURRENT_LIST_DIR}/kernelgen/${_kernelgen_part}.cmake")
endforeach()
unset(_kernelgen_part)

# Where the build step writes the candidate log.
function(_kernelgen_log_dir out)
  if(KERNELGEN_CACHE_DIR)
    set(${out} "${KERNELGEN_CACHE_DIR}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_BINARY_DIR}/kernelgen/candidates" PARENT_SCOPE)
  endif()
endfunction()

# Build steps that search validate and time kernels on the GPU: one at a time, so that they never time each other
# (the timing harness also holds a per-device file lock, for generators without job pools and for ctest).
set_property(GLOBAL APPEND PROPERTY JOB_POOLS kernelgen_gpu=1)
# kernelgen_regenerate and kernelgen_optimise search KERNELGEN_PARALLEL_SEARCHES ops at a time (Ninja's job pool
# kernelgen_searches; other generators run as many as -j allows): each op's search validates while another's does,
# and their timings still take turns, each holding the per-device lock while it times. Validation on lavapipe is
# partly serial (compiling, the reference, process start-up), so two searches on two cores finish sooner than one
# after the other. 1 runs them one at a time.
set(KERNELGEN_PARALLEL_SEARCHES 2 CACHE STRING
    "How many ops kernelgen_regenerate and kernelgen_optimise search at a time (Ninja); 1: one at a time")
if(NOT KERNELGEN_PARALLEL_SEARCHES MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "KERNELGEN_PARALLEL_SEARCHES is '${KERNELGEN_PARALLEL_SEARCHES}': give a whole number of ops "
                      "to search at a time, 1 or more (-DKERNELGEN_PARALLEL_SEARCHES=2)")
endif()
set_property(GLOBAL APPEND PROPERTY JOB_POOLS kernelgen_searches=${KERNELGEN_PARALLEL_SEARCHES})

if(NOT TARGET kernelgen_regenerate)
  _kernelgen_log_dir(_kernelgen_log)
  # Runs after every kernelgen_regenerate_<op>: the summary table of the candidate log.
  add_custom_target(kernelgen_regenerate
    COMMAND kernelgen::tool report --log-dir "${_kernelgen_log}"
    COMMENT "kernelgen: candidate log summary (${_kernelgen_log})"
    USES_TERMINAL VERBATIM)
  # Optimisation rounds started from every checked-in kernel, then the same summary.
  add_custom_target(kernelgen_optimise
    COMMAND kernelgen::tool report --log-dir "${_kernelgen_log}"
    COMMENT "kernelgen: candidate log summary (${_kernelgen_log})"
    USES_TERMINAL VERBATIM)
  unset(_kernelgen_log)
  # Every op's wrapper library, and so every op's build step: what the kernels need, without tests.
  add_custom_target(kernelgen_ops)
  # Every op's benchmark, which `all` leaves out.
  add_custom_target(kernelgen_benchmarks)
endif()

function(kernelgen_add_op name)
  set(one_value REFERENCE DESCRIPTION FLOPS BYTES SAMPLES ROUNDS OPT_ROUNDS BEAM MODEL BUDGET_USD KERNEL)
  set(multi_value INPUTS OUTPUTS SCRATCH DIMS BENCH_DIMS CPU_BENCH_DIMS INDEX PARAMS TOLERANCE VARIANTS)
  cmake_parse_arguments(PARSE_ARGV 1 KG "" "${one_value}" "${multi_value}")
  # Set here, not at file scope: a consumer calls this function from its own directories, where variables of
  # the directory that included this file are not visible. The helpers below see them as their caller's.
  set(_KERNELGEN_TEMPLATES "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/templates")
  # The runtime's header, in the source tree or installed: where kernelgen's CMakeLists.txt or
  # KernelGenConfig.cmake said.
  get_property(_KERNELGEN_DTYPES_DEF GLOBAL PROPERTY KERNELGEN_DTYPES_DEF)
  _kernelgen_read_dtypes()
  # A JSON number, since values are copied into the spec as they are written.
  set(_KERNELGEN_NUMBER "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$")
  set(where "kernelgen_add_op(${name}) in ${CMAKE_CURRENT_LIST_FILE}")

  # The steps, in order. Each reads `name`, `where`, the KG_ arguments and what the steps before it set here,
  # and sets here what it makes (the comment above each says what). The three *_interface steps set the KG_
  # variables of the templates (cmake/templates/*.in) that the last four steps configure; KG_DESCRIPTION
  # replaces the argument of that name after the last step that reads it.
  _kernelgen_check_arguments()
  _kernelgen_resolve_op_files()
  _kernelgen_parse_tensors()
  _kernelgen_parse_dim_sizes()
  _kernelgen_tensor_interface()
  _kernelgen_params_json()
  _kernelgen_tolerance_json()
  _kernelgen_cost()
  _kernelgen_search_json()
  _kernelgen_write_spec()
  _kernelgen_op_interface()
  _kernelgen_dims_interface()
  _kernelgen_checked_in_files()
  _kernelgen_add_reference_module()
  _kernelgen_add_build_step()
  _kernelgen_add_wrapper_library()
  _kernelgen_configure_op_under_test()
  _kernelgen_add_op_test()
  _kernelgen_add_op_benchmark()
endfunction()

