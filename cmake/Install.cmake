# `cmake --install build --prefix P` puts the streamrt program into P/bin, and the primitives
# library, its public headers (P/include/streamrt/primitives/...) and a CMake package into P/lib,
# so other CUDA or C++ code uses the compaction and reductions through
#   find_package(streamrt CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE streamrt::primitives)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STREAMRT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/streamrt)

install(TARGETS streamrt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS streamrt_primitives streamrt_options EXPORT streamrtTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/primitives/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/streamrt/primitives
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(EXPORT streamrtTargets NAMESPACE streamrt:: DESTINATION ${STREAMRT_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/streamrtConfig.cmake.in
  ${PROJECT_BINARY_DIR}/streamrtConfig.cmake INSTALL_DESTINATION ${STREAMRT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/streamrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/streamrtConfig.cmake
              ${PROJECT_BINARY_DIR}/streamrtConfigVersion.cmake
        DESTINATION ${STREAMRT_INSTALL_CMAKEDIR})
