# Runs a command and fails unless it exits with EXIT_CODE and its output (stdout and stderr together)
# matches the regular expression PATTERN.
#   cmake -DCOMMAND=<exe> -DARGS=<a;b;...> -DEXIT_CODE=<n> -DPATTERN=<regex> -P expect_command.cmake
execute_process(COMMAND "${COMMAND}" ${ARGS} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result STREQUAL "${EXIT_CODE}")
  message(FATAL_ERROR "expected exit code ${EXIT_CODE}, got ${result}; output:\n${output}")
endif()
if(NOT output MATCHES "${PATTERN}")
  message(FATAL_ERROR "expected output matching '${PATTERN}'; output:\n${output}")
endif()
message(STATUS "exit code ${result}, output matches '${PATTERN}'")
