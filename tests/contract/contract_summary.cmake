# cmake -DKC=<kernel-contract> -DBACKEND=<cpu|opencl> -DREPORTS=<dir> -DMIN_CONTROLS=<n> -DOUT=<file>
#       -P contract_summary.cmake:
# the backend's contract as one run, merged from the JSON Lines reports its entry tests wrote (one
# CTest test an entry: tests/contract/CMakeLists.txt), so no entry runs twice. Fails unless every
# entry the executable lists has its report and the merged run exits 0 with every kernel passing and
# every control red, at least one kernel and MIN_CONTROLS controls. Writes the merged run's lines to
# OUT (scripts/test prints its SUMMARY).
execute_process(COMMAND ${KC} --list --backend ${BACKEND} RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${KC} --list --backend ${BACKEND} failed (${rc}):\n${listed}\n${err}")
endif()
string(REPLACE "\n" ";" lines "${listed}")
set(files)
set(missing)
foreach(line ${lines})
  if(line MATCHES "^${BACKEND} +([^ ]+) ")
    string(REPLACE "/" "__" f "${CMAKE_MATCH_1}")
    if(EXISTS ${REPORTS}/${BACKEND}/${f}.jsonl)
      list(APPEND files ${REPORTS}/${BACKEND}/${f}.jsonl)
    else()
      list(APPEND missing ${CMAKE_MATCH_1})
    endif()
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " m)
  message(FATAL_ERROR "no report from the test of these ${BACKEND} entries (run the whole contract label: ctest -L contract):\n  ${m}")
endif()
execute_process(COMMAND ${KC} --merge ${files} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(WRITE ${OUT} "${out}")
string(REGEX MATCH "SUMMARY backend=${BACKEND} kernels=([0-9]+)/([0-9]+) known=([0-9]+) controls=([0-9]+)/([0-9]+) [^\n]*" line "${out}")
if(NOT line)
  message(FATAL_ERROR "no SUMMARY backend=${BACKEND} line (exit ${rc}):\n${out}\n${err}")
endif()
message(STATUS "${line}")
set(pass ${CMAKE_MATCH_1})
set(kernels ${CMAKE_MATCH_2})
set(red ${CMAKE_MATCH_4})
set(controls ${CMAKE_MATCH_5})
if(NOT rc EQUAL 0 OR NOT pass EQUAL kernels OR NOT red EQUAL controls OR kernels LESS 1 OR controls LESS ${MIN_CONTROLS}
   OR line MATCHES "absent=|failures=[1-9]|errors=[1-9]")
  message(FATAL_ERROR "the ${BACKEND} contract failed (exit ${rc}): ${line}\n${out}\n${err}")
endif()
