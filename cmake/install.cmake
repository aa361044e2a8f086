# `cmake --install` exports the KernelContract package: core, backends, gate 5 and main.
include(CMakePackageConfigHelpers)
# Exported as KernelContract::core, ::backends, ::limits and ::main (the names the build aliases).
foreach(t core backends limits main)
  set_target_properties(kc_${t} PROPERTIES EXPORT_NAME ${t})
endforeach()
install(TARGETS kc_core kc_backends kc_limits kc_main EXPORT KernelContractTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core/include/kc limits/include/kc DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES backends/factories.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backends)
install(EXPORT KernelContractTargets NAMESPACE KernelContract:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
configure_package_config_file(cmake/KernelContractConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/KernelContractConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/KernelContract)
