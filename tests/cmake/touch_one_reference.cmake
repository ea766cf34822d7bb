# cmake -DPROJECT_DIR=<dir> -DBINARY_DIR=<dir> -DGENERATOR=<Ninja...> [-DCONFIGURE_ARGS=<a;b;...>]
#       -P touch_one_reference.cmake
#
# The build graph is as tight as the ops: PROJECT_DIR declares cases/build_two_ops.cmake (negate and twice) and
# is built, which checks both kernels in; a build after that re-runs no step (though CMake re-runs, as
# generated/ gained files). Then twice's reference is touched. The next build re-runs twice's build step and
# nothing of negate's; neither op's kernel_data.cpp is rewritten, since neither kernel changed, so neither is
# recompiled; and the build after that has nothing to do.
function(run_build label)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY_DIR}" RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the ${label} build failed (${result}):\n${output}")
  endif()
  message(STATUS "the ${label} build:\n${output}")
  set(output "${output}" PARENT_SCOPE)
endfunction()

function(expect label output text want)
  string(FIND "${output}" "${text}" at)
  if(want AND at EQUAL -1)
    message(FATAL_ERROR "the ${label} build should have printed \"${text}\":\n${output}")
  elseif(NOT want AND NOT at EQUAL -1)
    message(FATAL_ERROR "the ${label} build should not have printed \"${text}\":\n${output}")
  endif()
endfunction()

# Seconds since the epoch: file(TIMESTAMP) has no finer resolution, so the test waits a second before touching.
function(modified op out)
  file(TIMESTAMP "${BINARY_DIR}/kernelgen/${op}/kernel_data.cpp" time "%s")
  if(NOT time)
    message(FATAL_ERROR "${BINARY_DIR}/kernelgen/${op}/kernel_data.cpp does not exist after the first build")
  endif()
  set(${out} "${time}" PARENT_SCOPE)
endfunction()

unset(ENV{KERNELGEN_MODEL})
file(REMOVE_RECURSE "${BINARY_DIR}/generated" "${BINARY_DIR}/kernelgen/negate" "${BINARY_DIR}/kernelgen/twice")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
                        -DKERNELGEN_CASE=build_two_ops ${CONFIGURE_ARGS}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "configuring ${PROJECT_DIR} failed (${result}):\n${output}")
endif()
run_build(first)
expect(first "${output}" "kernelgen: checking negate's kernel" TRUE)
expect(first "${output}" "kernelgen: checking twice's kernel" TRUE)
run_build(second)
expect(second "${output}" "kernelgen: checking" FALSE)
modified(negate negate_before)
modified(twice twice_before)

execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
file(TOUCH "${BINARY_DIR}/references/twice.cpp")
run_build(third)
expect(third "${output}" "kernelgen: checking twice's kernel" TRUE)
expect(third "${output}" "kernelgen: checking negate's kernel" FALSE)
expect(third "${output}" "references/negate.cpp" FALSE)
expect(third "${output}" "kernel_data.cpp" FALSE)
expect(third "${output}" "bin/kernelgen" FALSE)
modified(negate negate_after)
modified(twice twice_after)
if(NOT negate_after EQUAL negate_before OR NOT twice_after EQUAL twice_before)
  message(FATAL_ERROR "a kernel_data.cpp was rewritten though no kernel changed: negate's modified at "
                      "${negate_before}, then ${negate_after}; twice's at ${twice_before}, then ${twice_after}")
endif()

run_build(fourth)
expect(fourth "${output}" "ninja: no work to do." TRUE)
message(STATUS "touching twice's reference re-ran twice's build step alone and rewrote no kernel_data.cpp")
