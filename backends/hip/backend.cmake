# Included by backends/CMakeLists.txt: the HIP backend's sources. The real backend (hip_backend.cpp)
# where HIP's headers exist (ROCm, or Debian's libamdhip64-dev); stub.cpp elsewhere. The runtime
# library is opened at run time, so the binary runs (and says why HIP is absent) where it is missing.
# Its kernels come from the code objects limits/hip builds (build/hsaco), not from hipcc.
option(KC_HIP_RUNTIME "Build the HIP backend where HIP headers and libamdhip64 exist" ON)
set(kc_hip_backend_sources ${CMAKE_CURRENT_LIST_DIR}/stub.cpp)
string(REPLACE ";" "," kc_hip_chip_list "${KC_HIP_CHIPS}")  # cmake/KernelContractChips.cmake
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/stub.cpp PROPERTIES COMPILE_DEFINITIONS "KC_HIP_CHIPS=\"${kc_hip_chip_list}\"")
set(kc_hip_backend_libs)
if(KC_HIP_RUNTIME)
  find_path(KC_HIP_INCLUDE hip/hip_runtime_api.h PATHS /opt/rocm/include)
  if(KC_HIP_INCLUDE)
    set(kc_hip_backend_sources ${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp)
    # libamdhip64 is opened at run time, not linked; the code objects' folder is the paths file's
    set(kc_hip_backend_libs ${CMAKE_DL_LIBS} kc_limits)
    if(NOT KC_HIP_INCLUDE STREQUAL "/usr/include")  # a system directory must stay last on the path
      set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp PROPERTIES INCLUDE_DIRECTORIES ${KC_HIP_INCLUDE})
    endif()
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hip_backend.cpp PROPERTIES
      COMPILE_DEFINITIONS "__HIP_PLATFORM_AMD__=1;KC_HIP_CHIPS=\"${kc_hip_chip_list}\"")
    message(STATUS "kernel-contract: HIP backend with ${KC_HIP_INCLUDE}/hip (libamdhip64 opened at run time)")
  else()
    message(STATUS "kernel-contract: HIP backend is a stub (no hip/hip_runtime_api.h)")
  endif()
endif()
