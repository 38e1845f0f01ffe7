# SPDX-License-Identifier: MIT
# What `cmake --install` puts under the prefix: the static extension and the
# engine it needs (lib/), the entry point's header (include/), the loadable
# module (lib/sqlite_simhash/simhash.so), a CMake package
# (find_package(sqlite_simhash) -> sqlite_simhash::simhash_static) and a
# pkg-config file (sqlite_simhash.pc). tests/install/ builds an application
# against both.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS simhash_static simhash_engine EXPORT sqlite_simhash_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/sqlite_simhash.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS simhash LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/sqlite_simhash)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/sqlite_simhash)
install(EXPORT sqlite_simhash_targets NAMESPACE sqlite_simhash::
        FILE sqlite_simhashTargets.cmake DESTINATION ${package_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/sqlite_simhashConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/sqlite_simhashConfig.cmake
                              INSTALL_DESTINATION ${package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sqlite_simhashConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sqlite_simhashConfig.cmake
              ${PROJECT_BINARY_DIR}/sqlite_simhashConfigVersion.cmake
        DESTINATION ${package_dir})

# The .pc file finds the prefix from its own place, so `--prefix` works.
file(RELATIVE_PATH pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/sqlite_simhash.pc.in
               ${PROJECT_BINARY_DIR}/sqlite_simhash.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sqlite_simhash.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
