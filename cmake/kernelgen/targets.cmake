# The targets of an op: its reference module, its build step (and regenerate/optimise targets), its wrapper
# library, its test and its benchmark.
include_guard(GLOBAL)

# The build step's flags from CMake arguments: they win over the environment and the .env file. API keys are
# never among them: CMake stores its arguments in CMakeCache.txt, and a key must not land in a file. Nor is a
# base URL that holds credentials (https://user:pass@host/): configuration fails, and takes it out of the cache.
function(_kernelgen_tool_settings out)
  set(flags "")
  foreach(setting KERNELGEN_MODEL OPENAI_BASE_URL ANTHROPIC_BASE_URL GEMINI_BASE_URL KERNELGEN_TOKEN_BUDGET KERNELGEN_OPT_ROUNDS KERNELGEN_MAX_OUTPUT_TOKENS
                  KERNELGEN_TIMEOUT_S KERNELGEN_VALIDATION_TIMEOUT_S)
    if(setting MATCHES "_BASE_URL$" AND "${${setting}}" MATCHES "^([A-Za-z][A-Za-z0-9+.-]*:)?/*[^/?#]*@")
      string(REPLACE "_BASE_URL" "_API_KEY" key "${setting}")
      unset(${setting} CACHE)
      message(FATAL_ERROR "kernelgen: ${setting} holds credentials (user:password@ before the host), which would "
        "go on the build step's command line and stay in CMakeCache.txt; kernelgen removed it from the cache.\n"
        "  Fix: set ${setting} without them, and put the key in ${key} in the environment or a .env file.")
    endif()
    if(NOT "${${setting}}" STREQUAL "")
      list(APPEND flags --set "${setting}=${${setting}}")
    endif()
  endforeach()
  foreach(secret OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY)
    if(DEFINED CACHE{${secret}})
      message(WARNING "kernelgen ignores -D${secret}: CMake keeps it in CMakeCache.txt. Remove it from the cache "
                      "(cmake -U ${secret}) and set it in the environment or a .env file instead.")
    endif()
  endforeach()
  if(KERNELGEN_OFFLINE)
    list(APPEND flags --offline)
  endif()
  if(KERNELGEN_ALLOW_OTHER_GLSLANG)
    list(APPEND flags --set KERNELGEN_ALLOW_OTHER_GLSLANG=1)
  endif()
  _kernelgen_log_dir(log_dir)
  list(APPEND flags --log-dir "${log_dir}")
  if(KERNELGEN_CASSETTE_DIR)
    cmake_path(ABSOLUTE_PATH KERNELGEN_CASSETTE_DIR BASE_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE cassettes)
    list(APPEND flags --cassette-dir "${cassettes}")
  endif()
  list(APPEND flags --dotenv "${CMAKE_SOURCE_DIR}/.env")
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# The checked-in files are dependencies of the build step. The glob is re-checked on every build, so that
# deleting or adding files in generated/<op>/ re-runs configuration; a kernel that lost a file also loses its
# emitted kernel data, which makes the build step run and say what is wrong. Sets kernel_data (the build step's
# output, <dir>/kernel_data.cpp) and checked_in (the files of generated_dir and of its variants' folders).
function(_kernelgen_checked_in_files)
  set(kernel_data "${dir}/kernel_data.cpp")
  set(checked_in_patterns "")
  foreach(kernel_dir IN ITEMS "${generated_dir}" LISTS variant_names)
    if(NOT kernel_dir STREQUAL generated_dir)
      set(kernel_dir "${generated_dir}/variants/${kernel_dir}")
    endif()
    list(APPEND checked_in_patterns "${kernel_dir}/manifest.json" "${kernel_dir}/kernel.comp" "${kernel_dir}/kernel.spv")
  endforeach()
  file(GLOB checked_in CONFIGURE_DEPENDS ${checked_in_patterns})
  list(LENGTH checked_in checked_in_count)
  list(LENGTH checked_in_patterns expected_count)
  if(NOT checked_in_count EQUAL expected_count)
    file(REMOVE "${kernel_data}")
  endif()
  _kernelgen_propagate(kernel_data checked_in)
endfunction()

# The op's reference, compiled once: into the op's test, and into a module the tool loads (see
# generator/include/kernelgen/contract/reference_module.hpp). The tool links no reference, so a changed reference
# relinks this module and re-runs this op's step alone. Creates kernelgen_reference_<name> (an OBJECT library) and
# the module, <dir>/reference.so, whose target it sets reference_module to.
function(_kernelgen_add_reference_module)
  add_library(kernelgen_reference_${name} OBJECT "${reference}")
  set_target_properties(kernelgen_reference_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(kernelgen_reference_${name} PUBLIC kernelgen::reference)
  set(reference_module kernelgen_reference_module_${name})
  add_library(${reference_module} MODULE)
  target_link_libraries(${reference_module} PRIVATE kernelgen_reference_${name})
  # $<1:...>: the folder itself, without the per-configuration subfolder a multi-config generator would add.
  set_target_properties(${reference_module} PROPERTIES PREFIX "" OUTPUT_NAME reference
    LIBRARY_OUTPUT_DIRECTORY "$<1:${dir}>")
  _kernelgen_propagate(reference_module)
endfunction()

# The build step, which runs kernelgen::tool build-op on the spec to check the kernel in and writes kernel_data:
# a custom command whose dependencies are every input of the check (the tool, the reference module, the spec, the
# declared kernels, the checked-in files), and the targets kernelgen_regenerate_<name> and
# kernelgen_optimise_<name>, which run it on request with the terminal's live output. kernelgen_regenerate and
# kernelgen_optimise run it for every op through twins of those targets in the job pool kernelgen_searches
# (cmake/KernelGen.cmake), whose output Ninja prints as each op finishes.
function(_kernelgen_add_build_step)
  _kernelgen_tool_settings(tool_settings)
  set(build_op kernelgen::tool build-op --spec "${dir}/spec.json" --reference "$<TARGET_FILE:${reference_module}>"
               --out "${kernel_data}")
  # The step rewrites kernel_data.cpp only when it changes, and Ninja restats custom commands' outputs: a step
  # that re-runs for a touched reference leaves the op's library as it was.
  add_custom_command(OUTPUT "${kernel_data}"
    COMMAND ${build_op} ${tool_settings}
    DEPENDS kernelgen::tool ${reference_module} "${dir}/spec.json" "${reference}" ${kernel} ${variant_kernels}
            ${checked_in}
    COMMENT "kernelgen: checking ${name}'s kernel in ${generated_dir}"
    JOB_POOL kernelgen_gpu
    VERBATIM)
  # On request: search again (regenerate), or optimise the checked-in kernel; each also under a target for all ops.
  foreach(request regenerate optimise)
    if(request STREQUAL "regenerate")
      set(what "regenerating ${name}'s kernel")
    else()
      set(what "optimising ${name}'s checked-in kernel")
    endif()
    add_custom_target(kernelgen_${request}_${name}
      COMMAND ${build_op} --${request} ${tool_settings}
      DEPENDS kernelgen::tool ${reference_module}
      COMMENT "kernelgen: ${what}"
      USES_TERMINAL VERBATIM)
    add_custom_target(kernelgen_${request}_${name}_among_all
      COMMAND ${build_op} --${request} --concurrent-searches ${KERNELGEN_PARALLEL_SEARCHES} ${tool_settings}
      DEPENDS kernelgen::tool ${reference_module}
      COMMENT "kernelgen: ${what}"
      JOB_POOL kernelgen_searches VERBATIM)
    add_dependencies(kernelgen_${request} kernelgen_${request}_${name}_among_all)
  endforeach()
endfunction()

# kernelgen::<name>, the wrapper library: the interface known at configure time (op.hpp and op.cpp, configured
# into <dir> from the templates' variables) and the kernel data the build step writes.
function(_kernelgen_add_wrapper_library)
  configure_file("${_KERNELGEN_TEMPLATES}/op.hpp.in" "${dir}/include/kernelgen/ops/${name}.hpp" @ONLY)
  configure_file("${_KERNELGEN_TEMPLATES}/op.cpp.in" "${dir}/op.cpp" @ONLY)
  add_library(kernelgen_op_${name} STATIC "${dir}/op.cpp" "${kernel_data}")
  add_library(kernelgen::${name} ALIAS kernelgen_op_${name})
  # One compilation for both files (a unity build): each includes the op's header, and through it the runtime's
  # and Vulkan's, which take most of a file's time. A regenerated kernel recompiles the wrapper with it.
  set_target_properties(kernelgen_op_${name} PROPERTIES UNITY_BUILD ON)
  target_include_directories(kernelgen_op_${name} PUBLIC "$<BUILD_INTERFACE:${dir}/include>")
  target_link_libraries(kernelgen_op_${name} PUBLIC kernelgen::runtime)
  add_dependencies(kernelgen_ops kernelgen_op_${name})
endfunction()

# The checks every op's test and benchmark run (cmake/harness), compiled once per project into the static library
# `target` (kernelgen_op_tests or kernelgen_op_benchmarks) from harness/<source>, linking the libraries that follow
# (kernelgen's and GoogleTest or Google Benchmark); an op's own test.cpp and bench.cpp only describe the op
# (templates/op_under_test.hpp.in).
function(_kernelgen_harness_library target source)
  if(TARGET ${target})
    return()
  endif()
  set(harness "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../harness")
  add_library(${target} STATIC "${harness}/${source}")
  target_include_directories(${target} PUBLIC "${harness}/include")
  target_link_libraries(${target} PUBLIC ${ARGN})
  if(TARGET kernelgen_warnings)  # kernelgen's own build
    target_link_libraries(${target} PRIVATE kernelgen_warnings)
  endif()
endfunction()

# The op's description for its test and benchmark: <dir>/op_under_test.hpp, which both include (and kernelgen's
# own tests of the harness, with the catalog's relu).
function(_kernelgen_configure_op_under_test)
  configure_file("${_KERNELGEN_TEMPLATES}/op_under_test.hpp.in" "${dir}/op_under_test.hpp" @ONLY)
endfunction()

# With KERNELGEN_BUILD_OP_TESTS, test_kernelgen_<name>: the GoogleTest, configured into <dir>/test.cpp, that
# revalidates the kernel on fresh inputs, registered as the ctest test kernelgen.<name>.
function(_kernelgen_add_op_test)
  if(NOT KERNELGEN_BUILD_OP_TESTS)
    return()
  endif()
  # Imported targets are visible only below the directory that found them: find them again where a consumer
  # outside kernelgen's tree declares its op.
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest REQUIRED)
  endif()
  # The generator library for its glslang: a test compiles kernel.comp to check it is what the wrapper runs.
  _kernelgen_harness_library(kernelgen_op_tests op_tests.cpp kernelgen::generator GTest::gtest)
  configure_file("${_KERNELGEN_TEMPLATES}/test.cpp.in" "${dir}/test.cpp" @ONLY)
  add_executable(test_kernelgen_${name} "${dir}/test.cpp")
  target_link_libraries(test_kernelgen_${name} PRIVATE kernelgen::${name} kernelgen_reference_${name}
    kernelgen_op_tests GTest::gtest_main)
  add_test(NAME kernelgen.${name} COMMAND test_kernelgen_${name})
  # A GPU of its own under ctest --resource-spec-file; the runtime opens the one ctest names (README).
  set_tests_properties(kernelgen.${name} PROPERTIES LABELS kernelgen RESOURCE_GROUPS gpu:1)
endfunction()

# With KERNELGEN_BUILD_BENCHMARKS, bench_kernelgen_<name>: the Google Benchmark program, configured into
# <dir>/bench.cpp, that times the kernel and checks the output it leaves against the reference (linked for that).
# Built on request, not by `all`: by its name or with every op's, kernelgen_benchmarks.
function(_kernelgen_add_op_benchmark)
  if(NOT KERNELGEN_BUILD_BENCHMARKS)
    return()
  endif()
  if(NOT TARGET benchmark::benchmark)  # found again, as GTest above
    find_package(benchmark REQUIRED)
  endif()
  _kernelgen_harness_library(kernelgen_op_benchmarks op_benchmarks.cpp kernelgen::core benchmark::benchmark)
  set_target_properties(kernelgen_op_benchmarks PROPERTIES EXCLUDE_FROM_ALL ON)
  configure_file("${_KERNELGEN_TEMPLATES}/bench.cpp.in" "${dir}/bench.cpp" @ONLY)
  add_executable(bench_kernelgen_${name} EXCLUDE_FROM_ALL "${dir}/bench.cpp")
  target_link_libraries(bench_kernelgen_${name} PRIVATE kernelgen::${name} kernelgen_reference_${name}
    kernelgen_op_benchmarks)
  add_dependencies(kernelgen_benchmarks bench_kernelgen_${name})
endfunction()
