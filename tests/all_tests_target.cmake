# The target kernelgen_tests: every executable under tests/ (the fuzzers included where they are built), the
# kernelgen tool the tests run, and every op's reference module, since tests validate catalog kernels against
# them. It leaves out the op libraries, whose build steps check every checked-in kernel, and the per-op tests.

function(kernelgen_targets_below directory out)
  get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    kernelgen_targets_below("${subdirectory}" below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

kernelgen_targets_below("${PROJECT_SOURCE_DIR}/tests" test_targets)
if(KERNELGEN_BUILD_FUZZERS)
  kernelgen_targets_below("${PROJECT_SOURCE_DIR}/tests/fuzz" fuzz_targets)
  list(APPEND test_targets ${fuzz_targets})
endif()
if(KERNELGEN_BUILD_CATALOG)
  kernelgen_targets_below("${PROJECT_SOURCE_DIR}/ops" op_targets)
  list(FILTER op_targets INCLUDE REGEX "^kernelgen_reference_module_")
endif()
set(executables)
foreach(target IN LISTS test_targets)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    list(APPEND executables ${target})
  endif()
endforeach()
add_custom_target(kernelgen_tests)
add_dependencies(kernelgen_tests kernelgen_tool ${executables} ${op_targets})

# The target kernelgen_sanitized_tests: what CI's sanitizer pass builds (build preset asan), kernelgen_tests less
# the executables whose tests spend most of their time validating kernels on lavapipe, in code that the
# uninstrumented pass runs whole and that the search, build-step and worker tests built here run too (llm.Search,
# llm.BuildOp, isolation.IsolatedValidation): on a 2-core machine they took 417 of the pass's 860 s of tests, and
# their compiles 204 of its 2761 s of compile steps (.ninja_log). The test preset asan leaves out their tests by name.
set(kernelgen_not_sanitized test_generator_catalog_references test_generator_evaluate test_generator_contract_v2
    test_generator_timed_size test_generator_scratch test_generator_out_of_bounds test_op_harness)
set(sanitized ${executables})
list(REMOVE_ITEM sanitized ${kernelgen_not_sanitized})
add_custom_target(kernelgen_sanitized_tests)
add_dependencies(kernelgen_sanitized_tests kernelgen_tool ${sanitized} ${op_targets})
