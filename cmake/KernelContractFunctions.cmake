# kc_add_contract(<target> SOURCES <file>... [LAUNCHES <file-or-folder>...] [RECORDS <folder>])
#
# A contract executable of your own kernels: the sources' KC_KERNEL/KC_CONTROL entries, run by the
# harness's main. Beside the executable, <target>.paths says where its launch rows (LAUNCHES) and
# CUDA records (RECORDS, default records/cuda) are, so gate 5 reads your files, never the harness's
# (kc/limits/paths.hpp). `<target>_records` writes those records from the target's own binary.
# Every entry is its own CTest test, "<backend>/<entry>" (listed when ctest runs, as
# gtest_discover_tests does), with "<target>.limits" for gate 5; a GPU entry asks CTest for a "gpus"
# resource and is skipped where its backend is absent. Included by the installed package
# (find_package(KernelContract)) and by the harness's own build (add_subdirectory) alike.
set(_kc_functions_dir ${CMAKE_CURRENT_LIST_DIR})

function(kc_add_contract target)
  cmake_parse_arguments(PARSE_ARGV 1 KC "" "RECORDS" "SOURCES;LAUNCHES")
  if(NOT KC_SOURCES)
    message(FATAL_ERROR "kc_add_contract(${target}): no SOURCES")
  endif()
  if(KC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kc_add_contract(${target}): unknown arguments ${KC_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${target} ${KC_SOURCES})
  if(TARGET kc_main)
    target_link_libraries(${target} PRIVATE kc_main)
    set(tool $<TARGET_FILE:kernel-contract-limits>)
  else()
    target_link_libraries(${target} PRIVATE KernelContract::main)
    set(tool $<TARGET_FILE:KernelContract::limits_tool>)
  endif()

  set(paths "# Written by kc_add_contract: where ${target} finds its launch rows and records.\n")
  set(launch_args)
  foreach(p ${KC_LAUNCHES})
    get_filename_component(abs ${p} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${abs})
      message(FATAL_ERROR "kc_add_contract(${target}): LAUNCHES ${p} does not exist (${abs})")
    endif()
    string(APPEND paths "launches ${abs}\n")
    list(APPEND launch_args --launches ${abs})
  endforeach()
  if(NOT KC_RECORDS)
    set(KC_RECORDS records/cuda)
  endif()
  get_filename_component(records ${KC_RECORDS} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  string(APPEND paths "cuda-records ${records}\nlimits-tool ${tool}\n")
  file(GENERATE OUTPUT $<TARGET_FILE:${target}>.paths CONTENT "${paths}")

  add_custom_target(${target}_records
    COMMAND ${CMAKE_COMMAND} -E make_directory ${records}
    COMMAND ${tool} --write-records ${records} ${launch_args} $<TARGET_FILE:${target}>
    DEPENDS ${target}
    COMMENT "Writing ${target}'s CUDA launch records into ${records}"
    VERBATIM)

  # Gate 5 on the binary itself, where it declares launches: its images against every served chip
  # and its own records.
  if(KC_LAUNCHES)
    add_test(NAME ${target}.limits COMMAND ${tool} --records ${records} ${launch_args} $<TARGET_FILE:${target}>)
  endif()
  # One CTest test an entry, listed from the executable when ctest runs.
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake)
  file(GENERATE OUTPUT ${list_file} CONTENT
    "include(\"${_kc_functions_dir}/KernelContractDiscover.cmake\")\nkc_discover_entries(\"${target}\" \"$<TARGET_FILE:${target}>\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${list_file})
endfunction()
