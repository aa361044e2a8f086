# `cmake --install` exports the KernelContract package: core, backends, gate 5 and main.
include(CMakePackageConfigHelpers)
# Exported as KernelContract::core, ::backends, ::limits and ::main (the names the build aliases).
foreach(t core backends limits main)
  set_target_properties(kc_${t} PROPERTIES EXPORT_NAME ${t})
endforeach()
# The gate 5 tool too (KernelContract::limits_tool), so an outside project writes its own records
# from its own binary (kc_add_contract's <target>_records).
set_target_properties(kernel-contract-limits PROPERTIES EXPORT_NAME limits_tool)
install(TARGETS kc_core kc_backends kc_limits kc_main kernel-contract-limits EXPORT KernelContractTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# core/include/kc/families/<family>.hpp forward to families/<family>/ for the device builds that name
# core/include alone; the package holds the families' own headers (families/CMakeLists.txt) instead.
install(DIRECTORY core/include/kc limits/include/kc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        REGEX "kc/families/(rows|dense|affine|attention|blockscaled)[.]hpp$" EXCLUDE)
if(KC_HAVE_CUDA)
  install(FILES backends/cuda/include/kc/cuda.hpp backends/cuda/include/kc/cuda_launch.hpp backends/cuda/include/kc/cuda_module.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kc)
  target_include_directories(kc_backends PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endif()

# The OpenCL API for contracts (kc/opencl.hpp), built or stub alike.
install(FILES backends/opencl/include/kc/opencl.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kc)
install(FILES backends/factories.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backends)
install(EXPORT KernelContractTargets NAMESPACE KernelContract:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
configure_package_config_file(cmake/KernelContractConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfigVersion.cmake
              cmake/KernelContractFunctions.cmake cmake/KernelContractDiscover.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
