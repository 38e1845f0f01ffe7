# SPDX-License-Identifier: MIT
# SIMHASH_SQLITE_AMALGAMATION: an application that bundles its own SQLite
# (the amalgamation, as Android and iOS builds do) instead of using the
# system's. Defines the target simhash_sqlite3, that directory's sqlite3.c
# compiled with SIMHASH_SQLITE_AMALGAMATION_DEFINITIONS, which simhash_static
# then links (and compiles against) where the pkg-config build has
# PkgConfig::SQLITE3. An application linking simhash_static gets this SQLite
# and its sqlite3.h with it. tests/amalgamation/ is the working example;
# scripts/build-sqlite-amalgamation.sh makes such a directory from Debian's
# source.

set(amalgamation ${SIMHASH_SQLITE_AMALGAMATION})
foreach(required sqlite3.c sqlite3.h sqlite3ext.h)
  if(NOT EXISTS ${amalgamation}/${required})
    message(FATAL_ERROR "SIMHASH_SQLITE_AMALGAMATION=${amalgamation} has no ${required}")
  endif()
endforeach()
# The self-contained build is a loadable module, which needs a host SQLite
# that loads extensions; libdqlite links the system's libsqlite3, so the
# node program would have two SQLites.
if(SIMHASH_SELF_CONTAINED OR SIMHASH_DQLITE)
  message(FATAL_ERROR
          "SIMHASH_SQLITE_AMALGAMATION goes with neither SIMHASH_SELF_CONTAINED nor SIMHASH_DQLITE")
endif()

# The extension refuses an SQLite older than 3.40 when it is registered;
# saying so here is earlier and clearer than a failing sqlite3_open.
file(STRINGS ${amalgamation}/sqlite3.h version_line REGEX "^#define SQLITE_VERSION_NUMBER ")
string(REGEX REPLACE ".* ([0-9]+).*" "\\1" amalgamation_version "${version_line}")
if(amalgamation_version LESS 3040000)
  message(FATAL_ERROR "${amalgamation}/sqlite3.h is SQLite ${amalgamation_version}; "
                      "the extension needs 3.40.0 (3040000) or newer")
endif()
message(STATUS "SQLite: the amalgamation in ${amalgamation} (${amalgamation_version})")

find_package(Threads REQUIRED)
add_library(simhash_sqlite3 STATIC ${amalgamation}/sqlite3.c)
# The definitions are how this SQLite is compiled (SQLITE_OMIT_LOAD_EXTENSION,
# say), not part of its header's interface: the extension is compiled as
# for any other SQLite.
target_compile_definitions(simhash_sqlite3 PRIVATE ${SIMHASH_SQLITE_AMALGAMATION_DEFINITIONS})
target_include_directories(simhash_sqlite3 PUBLIC ${amalgamation})
# SQLite's source as its authors ship it: the project's -Werror is for the
# project's code, and another compiler's new warning in sqlite3.c is not a
# fault to stop the build for.
target_compile_options(simhash_sqlite3 PRIVATE $<IF:$<C_COMPILER_ID:MSVC>,/w,-w>)
target_link_libraries(simhash_sqlite3 PUBLIC Threads::Threads ${CMAKE_DL_LIBS}
                      $<$<NOT:$<C_COMPILER_ID:MSVC>>:m>)
