# kc_add_contract(<target> SOURCES <file>... [LAUNCHES <file-or-folder>...] [RECORDS <folder>])
#
# A contract executable of your own kernels: the sources' KC_KERNEL/KC_CONTROL entries, run by the
# harness's main. Its CUDA launch rows are derived from its KC_CUDA_LAUNCH declarations each time it
# is linked (<target>.launches.tsv beside it: <target> --launch-rows); LAUNCHES names files or
# folders of other rows (HIP, XPU, Metal). Beside the executable, <target>.paths says where its launch
# rows and CUDA records (RECORDS, default records/cuda) are, so gate 5 reads your files, never the
# harness's (kc/limits/paths.hpp). `<target>_records` writes those records from the target's own binary.
# Every entry is its own CTest test, "<backend>/<entry>" (listed when ctest runs, as
# gtest_discover_tests does), with "<target>.limits" for gate 5; a GPU entry asks CTest for a "gpus"
# resource and is skipped where its backend is absent. Included by the installed package
# (find_package(KernelContract)) and by the harness's own build (add_subdirectory) alike.

# The package's targets require C++20, for CUDA sources too, and CMake 3.25 knows no C++20 flag for
# nvcc 13: taught here, in the scope that finds the package (its project enabled CUDA first).
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()

# kc_cupti_library(<var>): the CUPTI library of the CUDA toolkit found (find_package(CUDAToolkit)),
# by its soname's file where there is one (it outlives a minor toolkit update), else "". The launch
# watch opens it at run time from a paths file's `cupti`: CUPTI is never linked. A parent project
# holding the harness by add_subdirectory() does not see its CUDA:: targets: the harness's build
# leaves its answer in a global property.
function(kc_cupti_library var)
  get_property(lib GLOBAL PROPERTY KC_CUPTI_LIBRARY)
  if(NOT lib AND TARGET CUDA::cupti)
    get_target_property(lib CUDA::cupti IMPORTED_LOCATION)
    get_filename_component(dir ${lib} DIRECTORY)
    if(DEFINED CUDAToolkit_VERSION_MAJOR AND EXISTS ${dir}/libcupti.so.${CUDAToolkit_VERSION_MAJOR})
      set(lib ${dir}/libcupti.so.${CUDAToolkit_VERSION_MAJOR})
    endif()
  endif()
  set(${var} ${lib} PARENT_SCOPE)
endfunction()

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
  set(rows $<TARGET_FILE:${target}>.launches.tsv)
  add_custom_command(TARGET ${target} POST_BUILD COMMAND ${target} --backend cuda --launch-rows ${rows}
                     COMMENT "${target} --launch-rows: its CUDA rows from its launch declarations" VERBATIM)
  string(APPEND paths "launches ${rows}\n")
  set(launch_args --launches ${rows})
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
  kc_cupti_library(cupti)
  if(cupti)
    string(APPEND paths "cupti ${cupti}\n")
  endif()
  file(GENERATE OUTPUT $<TARGET_FILE:${target}>.paths CONTENT "${paths}")

  add_custom_target(${target}_records
    COMMAND ${CMAKE_COMMAND} -E make_directory ${records}
    COMMAND ${tool} --write-records ${records} ${launch_args} $<TARGET_FILE:${target}>
    DEPENDS ${target}
    COMMENT "Writing ${target}'s CUDA launch records into ${records}"
    VERBATIM)

  # Gate 5 on the binary itself, where it declares launches (CUDA sources, or rows of its own): its
  # images against every served chip and its own records.
  set(cuda_sources ${KC_SOURCES})
  list(FILTER cuda_sources INCLUDE REGEX "\\.cu$")
  if(KC_LAUNCHES OR cuda_sources)
    add_test(NAME ${target}.limits COMMAND ${tool} --records ${records} ${launch_args} $<TARGET_FILE:${target}>)
  endif()
  # One CTest test an entry, listed from the executable when ctest runs.
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake)
  file(GENERATE OUTPUT ${list_file} CONTENT
    "include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/KernelContractDiscover.cmake\")\nkc_discover_entries(\"${target}\" \"$<TARGET_FILE:${target}>\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${list_file})
endfunction()
