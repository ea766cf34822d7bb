cmake_minimum_required(VERSION 3.25)
# One test of the project beside this file: writes RESULTS/NAME.txt with the GPU ctest gave it
# ($CTEST_RESOURCE_GROUP_0_GPU), the device kernelgen opens (SELECTED_DEVICE's "<index> <name>"), and whether
# test OTHER was running at the same time, waiting up to WAIT_S seconds for it to start.
file(WRITE "${RESULTS}/${NAME}.running" "")
execute_process(COMMAND "${SELECTED_DEVICE}" RESULT_VARIABLE failed OUTPUT_VARIABLE device ERROR_VARIABLE device
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(failed)
  message(FATAL_ERROR "${SELECTED_DEVICE} failed (${failed}): ${device}")
endif()

set(overlapped no)
string(TIMESTAMP start "%s")
while(TRUE)
  if(EXISTS "${RESULTS}/${OTHER}.running")
    set(overlapped yes)
    break()
  endif()
  string(TIMESTAMP now "%s")
  math(EXPR waited "${now} - ${start}")
  if(EXISTS "${RESULTS}/${OTHER}.done" OR waited GREATER_EQUAL WAIT_S)
    break()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.1)
endwhile()

file(WRITE "${RESULTS}/${NAME}.txt" "gpu=$ENV{CTEST_RESOURCE_GROUP_0_GPU}\ndevice=${device}\noverlapped=${overlapped}\n")
file(RENAME "${RESULTS}/${NAME}.running" "${RESULTS}/${NAME}.done")
