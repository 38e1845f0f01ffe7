# SPDX-License-Identifier: MIT
# Cross build for s390x, the big-endian target (cmake/debian-cross.cmake).
set(SIMHASH_CROSS_TRIPLE s390x-linux-gnu)
set(SIMHASH_CROSS_PROCESSOR s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
