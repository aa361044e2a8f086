# cmake -DKC=<kernel-contract> -DBACKEND=<cpu|opencl> -DMIN_CONTROLS=<n> -DOUT=<file> -P contract_summary.cmake:
# runs the contract on one backend (gates 1-4; gate 5 is the limits tests' and, for OpenCL, the xpu
# backend's) and fails unless it exits 0 with every kernel passing and every control red, at least one
# kernel and MIN_CONTROLS controls. Writes the run's output to OUT (scripts/test prints its SUMMARY).
execute_process(COMMAND ${KC} --backend ${BACKEND} --no-limits RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
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
   OR line MATCHES "absent=|errors=[1-9]")
  message(FATAL_ERROR "the ${BACKEND} contract failed (exit ${rc}): ${line}\n${out}\n${err}")
endif()
