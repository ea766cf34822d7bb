# `cmake --install <build> --prefix <prefix>`: the kernelgen tool, the libraries and headers a project's ops
# build against, and the CMake package that find_package(KernelGen) reads:
#   bin/kernelgen
#   include/kernelgen/...                 the runtime's, the reference's and the generator's headers
#   lib/libkernelgen_*.a                  runtime, reference registry, core, generator
#   lib/cmake/KernelGen/                  KernelGenConfig.cmake, KernelGenConfigVersion.cmake, KernelGenTargets.cmake,
#                                         KernelGenOptions.cmake, KernelGenToolchain.cmake (glslang, SPIRV-Tools and
#                                         the Vulkan headers, as the build found them), KernelGen.cmake
#                                         (kernelgen_add_op), kernelgen/ (its
#                                         steps), templates/ and harness/ (the sources of what every op's test and
#                                         benchmark run)
include(CMakePackageConfigHelpers)
set(_kernelgen_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/KernelGen")

install(TARGETS kernelgen_tool kernelgen_runtime kernelgen_reference kernelgen_reference_registry kernelgen_core
                kernelgen_generator
  EXPORT KernelGenTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(headers IN ITEMS runtime/include reference/include generator/include)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${headers}/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
install(EXPORT KernelGenTargets NAMESPACE kernelgen:: DESTINATION ${_kernelgen_package_dir})

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/KernelGenConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/KernelGenConfig.cmake"
  INSTALL_DESTINATION ${_kernelgen_package_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change kernelgen_add_op, so only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/KernelGenConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/KernelGenConfig.cmake" "${PROJECT_BINARY_DIR}/KernelGenConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/KernelGenOptions.cmake" "${PROJECT_SOURCE_DIR}/cmake/KernelGen.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/KernelGenToolchain.cmake"
  DESTINATION ${_kernelgen_package_dir})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/cmake/templates" "${PROJECT_SOURCE_DIR}/cmake/kernelgen"
                  "${PROJECT_SOURCE_DIR}/cmake/harness"
  DESTINATION ${_kernelgen_package_dir})
unset(_kernelgen_package_dir)
