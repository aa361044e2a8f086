# The served chips, from gate 5's chip tables (data with a source on every row): every list of SMs or
# AMD chips in the build comes from here.
#   KC_SERVED_CUDA_SMS  80 86 89 90 ...   limits/chips/cuda.tsv, one row a served SM
#   KC_SERVED_HIP_CHIPS gfx1030 ...       limits/hip/amd_chips.tsv, one row a served chip
# The defaults of KC_CUDA_SMS (what nvcc compiles for: sm_90 as 90a, for wgmma) and KC_HIP_CHIPS follow.
function(kc_chip_column file out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(READ ${file} text)
  string(REPLACE ";" "," text "${text}")  # a source column's ';' is no list separator here
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(l IN LISTS lines)
    if(l MATCHES "^([^# \t][^ \t]*)")
      list(APPEND names ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "${file}: no chip rows")
  endif()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH kc_tree)
kc_chip_column(${kc_tree}/limits/chips/cuda.tsv kc_sm_rows)
list(TRANSFORM kc_sm_rows REPLACE "^sm_" "" OUTPUT_VARIABLE KC_SERVED_CUDA_SMS)
kc_chip_column(${kc_tree}/limits/hip/amd_chips.tsv KC_SERVED_HIP_CHIPS)
list(TRANSFORM KC_SERVED_CUDA_SMS REPLACE "^90$" "90a" OUTPUT_VARIABLE kc_default_sms)
set(KC_CUDA_SMS ${kc_default_sms} CACHE STRING "SMs every CUDA kernel is compiled for (90a: sm_90 with wgmma; default: every served SM)")
set(KC_HIP_CHIPS ${KC_SERVED_HIP_CHIPS} CACHE STRING "AMD chips every HIP kernel is compiled for (default: every served chip)")
