# kc_verdict_lines(<out-var> <text> <backend>): the verdict lines of a kernel-contract console run
# (PASS, FAIL, KNOWN, FIXED, RED, GREEN, N/A, ERROR and ALSO lines of <backend>, then its SUMMARY),
# each without the gate's time that ends it, as one string a line. What a faster harness must
# reproduce exactly; the times are its own, and so are the address a planted overread faults at and
# the pid of the process it killed (both shown as "...").
function(kc_verdict_lines out text backend)
  # Lines hold ';' (a detail joins problems with it): kept apart from CMake's list separator.
  string(REPLACE ";" "<kc-semicolon>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(kept "")
  foreach(l IN LISTS lines)
    if(l MATCHES "^(PASS|FAIL|KNOWN|FIXED|RED|GREEN|N/A|ERROR|ALSO) +${backend} ")
      # "... (0.3 s)" or "... (1.2 s: inputs 0.4 s, reference 0.7 s)": the time, never in a verdict.
      string(REGEX REPLACE " \\([0-9]+\\.[0-9] s(: [a-z0-9., ]+)?\\)$" "" l "${l}")
      string(REGEX REPLACE "at address 0x[0-9a-f]+" "at address 0x..." l "${l}")
      string(REGEX REPLACE "\\(pid [0-9]+\\)" "(pid ...)" l "${l}")
      string(APPEND kept "${l}\n")
    elseif(l MATCHES "^SUMMARY backend=${backend} ")
      string(APPEND kept "${l}\n")
    endif()
  endforeach()
  string(REPLACE "<kc-semicolon>" ";" kept "${kept}")
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()
