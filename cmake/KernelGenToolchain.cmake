# The shader toolchain kernelgen compiles and checks kernels with: the Vulkan headers, glslang and SPIRV-Tools at
# the versions that know GL_KHR_cooperative_matrix and GL_NV_cooperative_matrix2 (Debian 13's, which .ci/toolchain
# builds from Debian's source tarballs into KERNELGEN_TOOLCHAIN_PREFIX; .ci/setup runs it). Included by kernelgen's
# own CMakeLists.txt and by the installed KernelGenConfig.cmake, so that a find_package(KernelGen) consumer links
# the same libraries the tool was built with. Fails, naming .ci/setup, where what it finds is older.
set(KERNELGEN_TOOLCHAIN_PREFIX "/opt/kernelgen-toolchain" CACHE PATH
    "Where .ci/toolchain installed kernelgen's glslang, SPIRV-Tools and Vulkan headers (searched first)")
# The oldest versions that compile and validate GL_NV_cooperative_matrix2 (glslang 15.1) and validate
# SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing (SPIRV-Tools 2024.4), with headers that declare
# VK_NV_cooperative_matrix2 (1.3.296).
set(KERNELGEN_GLSLANG_MIN_VERSION 15.1)
set(KERNELGEN_SPIRV_TOOLS_MIN_VERSION 2024.4)
set(KERNELGEN_VULKAN_HEADERS_MIN_VERSION 1.3.296)
list(PREPEND CMAKE_PREFIX_PATH "${KERNELGEN_TOOLCHAIN_PREFIX}")
# A build folder configured before the toolchain was there, or with another prefix, keeps in its cache what it found
# then: where the prefix holds the toolchain now (.ci/toolchain's stamps), entries that point elsewhere are dropped
# so that it is found there.
if(EXISTS "${KERNELGEN_TOOLCHAIN_PREFIX}/share/kernelgen-toolchain")
  foreach(_kernelgen_entry IN ITEMS glslang_DIR SPIRV-Tools_DIR Vulkan_INCLUDE_DIR)
    if(DEFINED CACHE{${_kernelgen_entry}})
      string(FIND "$CACHE{${_kernelgen_entry}}" "${KERNELGEN_TOOLCHAIN_PREFIX}/" _kernelgen_at)
      if(NOT _kernelgen_at EQUAL 0)
        unset(${_kernelgen_entry} CACHE)
      endif()
    endif()
  endforeach()
  unset(_kernelgen_entry)
  unset(_kernelgen_at)
endif()

set(_kernelgen_toolchain_fix "Run `bash .ci/setup` in kernelgen's source tree: it builds the pinned toolchain once \
(about 8 minutes on 2 cores) into /opt/kernelgen-toolchain, or into $KERNELGEN_TOOLCHAIN_PREFIX where that is set \
in the environment; or `bash .ci/toolchain <prefix>` and configure with -DKERNELGEN_TOOLCHAIN_PREFIX=<prefix>. \
This build looks in ${KERNELGEN_TOOLCHAIN_PREFIX}. docs/troubleshooting.md, 'An older glslang', says more.")

function(_kernelgen_toolchain_fail what found)
  message(FATAL_ERROR "kernelgen needs ${what}; found ${found}.\n${_kernelgen_toolchain_fix}")
endfunction()

find_package(Vulkan REQUIRED)
if(NOT Vulkan_VERSION OR Vulkan_VERSION VERSION_LESS KERNELGEN_VULKAN_HEADERS_MIN_VERSION)
  _kernelgen_toolchain_fail("Vulkan headers >= ${KERNELGEN_VULKAN_HEADERS_MIN_VERSION}"
                            "${Vulkan_VERSION} in ${Vulkan_INCLUDE_DIR}")
endif()
find_package(glslang CONFIG QUIET)
if(NOT glslang_FOUND OR glslang_VERSION VERSION_LESS KERNELGEN_GLSLANG_MIN_VERSION)
  _kernelgen_toolchain_fail("glslang >= ${KERNELGEN_GLSLANG_MIN_VERSION}"
                            "'${glslang_VERSION}' (${glslang_DIR})")
endif()
find_package(SPIRV-Tools CONFIG QUIET)
# SPIRV-Tools' config package has no version file: its pkg-config file, installed beside it, holds the version.
set(_kernelgen_spirv_tools_version "")
if(SPIRV-Tools_FOUND)
  get_filename_component(_kernelgen_spirv_tools_pc "${SPIRV-Tools_DIR}/../../pkgconfig/SPIRV-Tools.pc" ABSOLUTE)
  if(EXISTS "${_kernelgen_spirv_tools_pc}")
    file(STRINGS "${_kernelgen_spirv_tools_pc}" _kernelgen_spirv_tools_version REGEX "^Version:")
    string(REGEX REPLACE "^Version: *v?([0-9.]+).*" "\\1" _kernelgen_spirv_tools_version
           "${_kernelgen_spirv_tools_version}")
  endif()
endif()
if(NOT SPIRV-Tools_FOUND OR _kernelgen_spirv_tools_version VERSION_LESS KERNELGEN_SPIRV_TOOLS_MIN_VERSION)
  _kernelgen_toolchain_fail("SPIRV-Tools >= ${KERNELGEN_SPIRV_TOOLS_MIN_VERSION}"
                            "'${_kernelgen_spirv_tools_version}' (${SPIRV-Tools_DIR})")
endif()
unset(_kernelgen_spirv_tools_pc)
unset(_kernelgen_spirv_tools_version)
