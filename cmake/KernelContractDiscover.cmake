# Run by ctest (kc_add_contract's TEST_INCLUDE_FILES): lists a contract executable's entries and adds
# one test each, "<backend>/<entry>", gates 1-4 of that entry alone (kc_add_contract adds gate 5's).
function(kc_discover_entries target exe)
  if(NOT EXISTS "${exe}")
    add_test("${target}.not_built" "${exe}")  # fails, naming the missing executable
    return()
  endif()
  execute_process(COMMAND "${exe}" --list RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 3)
    add_test("${target}.list_failed" "${exe}" --list)  # fails again, with its output
    return()
  endif()
  string(REPLACE "\n" ";" lines "${out}")
  foreach(line ${lines})
    if(NOT line MATCHES "^([a-z]+) +([^ ]+) ")
      continue()
    endif()
    set(backend ${CMAKE_MATCH_1})
    set(entry ${CMAKE_MATCH_2})
    set(name "${backend}/${entry}")
    add_test("${name}" "${exe}" --backend ${backend} --only ${entry} --exact --no-limits)
    # An absent backend (no GPU here) says absent= and exits 1: skipped, never passed.
    set_tests_properties("${name}" PROPERTIES SKIP_REGULAR_EXPRESSION "absent=\"" LABELS "${target};${backend}")
    if(NOT backend STREQUAL "cpu")
      set_tests_properties("${name}" PROPERTIES RESOURCE_GROUPS "gpus:1")
    endif()
  endforeach()
endfunction()
