# Included by the tests' cmake -P scripts: step() runs a command and stops the script with its
# output where it fails (last_out holds its stdout); expect() stops it where text lacks a match.
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()
function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "no match for '${regex}' in:\n${text}")
  endif()
endfunction()
