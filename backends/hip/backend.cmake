# Included by backends/CMakeLists.txt: the HIP backend's sources. The real backend (hip_backend.cpp)
# where HIP's headers and libamdhip64 exist (ROCm, or Debian's libamdhip64-dev); stub.cpp elsewhere.
# Its kernels come from the code objects limits/hip builds (build/hsaco), not from hipcc.
option(KC_HIP_RUNTIME "Build the HIP backend where HIP headers and libamdhip64 exist" ON)
set(KC_HIP_CHIPS gfx1030 gfx1100 gfx1151 gfx1201 CACHE STRING "AMD chips every HIP kernel is compiled for")
set(kc_hip_backend_sources ${CMAKE_CURRENT_LIST_DIR}/stub.cpp)
set(kc_hip_backend_libs)
if(KC_HIP_RUNTIME)
  find_path(KC_HIP_INCLUDE hip/hip_runtime_api.h PATHS /opt/rocm/include)
  find_library(KC_HIP_LIBRARY amdhip64 PATHS /opt/rocm/lib)
  if(KC_HIP_INCLUDE AND KC_HIP_LIBRARY)
    set(kc_hip_backend_sources ${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp)
    set(kc_hip_backend_libs ${KC_HIP_LIBRARY})
    string(REPLACE ";" "," kc_hip_chip_list "${KC_HIP_CHIPS}")
    if(NOT KC_HIP_INCLUDE STREQUAL "/usr/include")  # a system directory must stay last on the path
      set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp PROPERTIES INCLUDE_DIRECTORIES ${KC_HIP_INCLUDE})
    endif()
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp PROPERTIES
      COMPILE_DEFINITIONS "__HIP_PLATFORM_AMD__=1;KC_HIP_OBJECTS_DIR=\"${CMAKE_BINARY_DIR}/hsaco\";KC_HIP_CHIPS=\"${kc_hip_chip_list}\"")
    message(STATUS "kernel-contract: HIP backend with ${KC_HIP_LIBRARY}")
  else()
    message(STATUS "kernel-contract: HIP backend is a stub (no hip/hip_runtime_api.h or libamdhip64)")
  endif()
endif()
