# SPDX-License-Identifier: MIT
# The common part of the cross toolchain files (cmake/<triple>.cmake set
# SIMHASH_CROSS_TRIPLE and SIMHASH_CROSS_PROCESSOR, where they differ from
# those SIMHASH_CROSS_MULTIARCH, Debian's library directory, and
# SIMHASH_CROSS_QEMU, the qemu-user program, then include this):
# Debian's cross compiler <triple>-g++, the target's libraries unpacked into
# .cross/<triple>/ by scripts/cross-sysroot.sh, and qemu-user to run what is
# built (CMAKE_CROSSCOMPILING_EMULATOR, used by ctest and by
# gtest_discover_tests).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${SIMHASH_CROSS_PROCESSOR})
set(CMAKE_C_COMPILER ${SIMHASH_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SIMHASH_CROSS_TRIPLE}-g++)
if(NOT DEFINED SIMHASH_CROSS_MULTIARCH)
  set(SIMHASH_CROSS_MULTIARCH ${SIMHASH_CROSS_TRIPLE})
endif()
if(NOT DEFINED SIMHASH_CROSS_QEMU)
  set(SIMHASH_CROSS_QEMU qemu-${SIMHASH_CROSS_PROCESSOR})
endif()
set(CMAKE_LIBRARY_ARCHITECTURE ${SIMHASH_CROSS_MULTIARCH})

get_filename_component(sysroot "${CMAKE_CURRENT_LIST_DIR}/../.cross/${SIMHASH_CROSS_TRIPLE}"
                       ABSOLUTE)
if(NOT EXISTS "${sysroot}/.complete")
  message(FATAL_ERROR "${sysroot} is missing: run scripts/cross-sysroot.sh first")
endif()
set(libdir "${sysroot}/usr/lib/${SIMHASH_CROSS_MULTIARCH}")
# The unpacked libraries first, then the cross toolchain's own.
set(CMAKE_FIND_ROOT_PATH "${sysroot}" /usr/${SIMHASH_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${libdir}/pkgconfig:${sysroot}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${sysroot}")
# The unpacked headers before the host's /usr/include (which Debian's cross
# compilers search too), and the unpacked libraries' own dependencies at link
# time and at run time.
set(CMAKE_C_FLAGS_INIT "-isystem ${sysroot}/usr/include")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${sysroot}/usr/include")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${libdir}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${libdir}")
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${SIMHASH_CROSS_QEMU};-L;/usr/${SIMHASH_CROSS_TRIPLE};-E;LD_LIBRARY_PATH=${libdir})
