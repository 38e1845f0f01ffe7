# SPDX-License-Identifier: MIT
# Cross build for aarch64 (cmake/debian-cross.cmake).
set(SIMHASH_CROSS_TRIPLE aarch64-linux-gnu)
set(SIMHASH_CROSS_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
