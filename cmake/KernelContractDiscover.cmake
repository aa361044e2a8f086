# Run by ctest (kc_add_contract's TEST_INCLUDE_FILES): lists a contract executable's entries and adds
# one test each, "<backend>/<entry>", gates 1-4 of that entry alone (kc_add_contract adds gate 5's).
#   kc_discover_entries(<target> <exe> [REPORTS <dir>] [SEEDS <backend>=<n>...])
# REPORTS: each test also writes its run's JSON Lines report to <dir>/<backend>/<entry>.jsonl ("/" in
# the entry's name as "__"), which `<exe> --merge` reads back as one run. SEEDS: the entries of that
# backend run under n seeds (--seeds). Leaves each backend's test names in KC_ENTRY_TESTS_<backend>,
# so a test added after it can run after them all (DEPENDS).
function(kc_discover_entries target exe)
  cmake_parse_arguments(PARSE_ARGV 2 KC "" "REPORTS" "SEEDS")
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
    set(args --backend ${backend} --only ${entry} --exact --no-limits)
    foreach(s ${KC_SEEDS})
      if(s MATCHES "^${backend}=([0-9]+)$")
        list(APPEND args --seeds ${CMAKE_MATCH_1})
      endif()
    endforeach()
    if(KC_REPORTS)
      string(REPLACE "/" "__" file "${entry}")
      list(APPEND args --reporter json --out "${KC_REPORTS}/${backend}/${file}.jsonl")
      file(MAKE_DIRECTORY "${KC_REPORTS}/${backend}")
    endif()
    add_test("${name}" "${exe}" ${args})
    # An absent backend (no GPU here) says absent= and exits 1: skipped, never passed.
    set_tests_properties("${name}" PROPERTIES SKIP_REGULAR_EXPRESSION "absent=\"" LABELS "contract;${target};${backend}")
    if(NOT backend STREQUAL "cpu")
      set_tests_properties("${name}" PROPERTIES RESOURCE_GROUPS "gpus:1")
    endif()
    list(APPEND kc_${backend}_tests "${name}")
  endforeach()
  foreach(b cpu cuda hip xpu opencl metal)
    set(KC_ENTRY_TESTS_${b} "${kc_${b}_tests}" PARENT_SCOPE)
  endforeach()
endfunction()
