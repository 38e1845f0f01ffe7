# SPDX-License-Identifier: MIT
# Cross build for 32-bit x86 (cmake/debian-cross.cmake): Debian's i386
# architecture, whose compiler targets i686 and keeps doubles in the x87
# unit unless told otherwise (see SIMHASH_X87 in CMakeLists.txt).
set(SIMHASH_CROSS_TRIPLE i686-linux-gnu)
set(SIMHASH_CROSS_PROCESSOR i686)
set(SIMHASH_CROSS_MULTIARCH i386-linux-gnu)
set(SIMHASH_CROSS_QEMU qemu-i386)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
