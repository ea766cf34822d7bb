# cmake -DCASE=<name> -DPROJECT_DIR=<dir> -DBINARY_DIR=<dir> -DGENERATOR=<name> [-DFRESH=ON]
#       [-DCLEAN=<path;...>] [-DCONFIGURE_ARGS=<a;b;...>] -P run_case.cmake
#
# Configures PROJECT_DIR with cases/<CASE>.cmake declared (and builds it, for a build case) and checks what the
# case file's header asks:
#   # expect: configure fails | configure succeeds | build fails | build succeeds
#   # output: <text>      any number; each must appear in that step's output (whitespace runs count as one
#                         space, so CMake's line wrapping does not matter)
# FRESH starts from an empty BINARY_DIR; without it the case reuses the tree an earlier case configured, less
# the CLEAN paths (relative to BINARY_DIR).
set(case_file "${PROJECT_DIR}/cases/${CASE}.cmake")
file(STRINGS "${case_file}" header REGEX "^# (expect|output): ")
set(expect "")
set(outputs "")
foreach(line IN LISTS header)
  if(line MATCHES "^# expect: (configure|build) (fails|succeeds)$")
    set(step "${CMAKE_MATCH_1}")
    set(expect "${CMAKE_MATCH_2}")
  elseif(line MATCHES "^# output: (.+)$")
    list(APPEND outputs "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT expect)
  message(FATAL_ERROR "${case_file} has no `# expect: <configure|build> <fails|succeeds>` line")
endif()

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${name}_result "${result}" PARENT_SCOPE)
  set(${name}_output "${output}" PARENT_SCOPE)
endfunction()

# Fails the test unless the step ended as expected and printed every text in ARGN.
function(check_step name want)
  set(output "${${name}_output}")
  if(want STREQUAL "succeeds" AND NOT ${name}_result EQUAL 0)
    message(FATAL_ERROR "${CASE}: ${name} should succeed but failed (${${name}_result}):\n${output}")
  elseif(want STREQUAL "fails" AND ${name}_result EQUAL 0)
    message(FATAL_ERROR "${CASE}: ${name} should fail but succeeded:\n${output}")
  endif()
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${output}")
  foreach(text IN LISTS ARGN)
    string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
    string(FIND "${flat}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${CASE}: the ${name} output lacks \"${text}\":\n${output}")
    endif()
  endforeach()
  message(STATUS "${CASE}: ${name} ${want} as expected:\n${output}")
endfunction()

# The build step would take a model from the environment; the cases are about the declared KERNELs alone.
unset(ENV{KERNELGEN_MODEL})
if(FRESH)
  file(REMOVE_RECURSE "${BINARY_DIR}")
endif()
foreach(path IN LISTS CLEAN)
  file(REMOVE_RECURSE "${BINARY_DIR}/${path}")
endforeach()
run_step(configure "${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
  "-DKERNELGEN_CASE=${CASE}" ${CONFIGURE_ARGS})
if(step STREQUAL "configure")
  check_step(configure "${expect}" ${outputs})
else()
  check_step(configure succeeds)
  run_step(build "${CMAKE_COMMAND}" --build "${BINARY_DIR}")
  check_step(build "${expect}" ${outputs})
endif()
