# SPDX-License-Identifier: MIT
# What a built module exports: its entry point alone
# (sqlite3_simhash_init). The version script's
# `local: *` and --exclude-libs,ALL keep the engine's, ICU's and any
# static library's symbols local, so two builds of the module in one
# process (SQLite loads extensions RTLD_GLOBAL) cannot bind to each other,
# and nothing outside can interpose on the engine. tests/layout/
# module_exports.sh checks the result.
function(simhash_export_entry_point_only target)
  set(map ${PROJECT_SOURCE_DIR}/cmake/simhash-module.map)
  target_link_options(${target} PRIVATE -Wl,--version-script=${map} -Wl,--exclude-libs,ALL)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()
