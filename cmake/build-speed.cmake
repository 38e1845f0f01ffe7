# SPDX-License-Identifier: MIT
# What makes a build from nothing (scripts/test.sh on a fresh CI machine, no
# compiler cache) cheaper without changing the engine and the module it
# builds or the tests it runs: a precompiled header for the test programs
# (SIMHASH_PCH), a lower optimisation level for the test programs' own files
# (SIMHASH_TEST_OPTIMIZATION), and a sql_tests of only the files a build's
# test filter needs (SIMHASH_SQL_TEST_FILES). All three are off by default,
# so a plain build compiles every test as it always did. SIMHASH_PCH: a
# developer's ccache cannot cache a compile that uses a precompiled header,
# and the Release build of scripts/test.sh keeps compiling every test file
# with nothing forced in, so a missing #include still fails there.
#
# Not unity builds (CMAKE_UNITY_BUILD): the engine's, the glue's and the
# tests' files have helpers of the same name in anonymous namespaces
# (make_plan, contains, PlanCase, the fault hooks' `failed`) and name
# GoogleTest's ::testing beside the project's simhash::testing; a clash
# depends on which files share a batch, so every test file added could
# break those builds.

option(SIMHASH_PCH "Precompile GoogleTest's and the common standard headers for the test programs"
       OFF)

# The builds that exist only to run the tests on another processor (the
# cross builds under qemu-user) spend most of their compiling on the test
# files at the build type's -O3 (-O1 took about a fifth less on a sample of
# them: docs/development.md); the self-contained build's test programs too
# (a tenth less there, with g++ on the host). A flag such
# as -O1 here goes on the test programs' own files only (after the build
# type's, so it wins); the engine library and the module they test are
# compiled as users get them. Empty (the default): the build type's level.
set(SIMHASH_TEST_OPTIMIZATION "" CACHE STRING
    "An optimisation flag for the test programs' own files only (such as -O1); empty: the build type's")

# Every test file includes gtest/gtest.h and most of these standard headers:
# parsed once per program instead of once per file. Each program gets its
# own header rather than REUSE_FROM: their compile definitions differ, and
# clang refuses a precompiled header built with other macros. The test files
# define no macros, so what the header is compiled with is what they see.
# The header costs about what five files' parsing of it saves (g++ with the
# sanitizers: 8 s to build, 1.5 s saved a file), so a program of fewer files
# than that (static_link_test, fault_tests) compiles without it.
function(simhash_test_program target)
  get_target_property(sources ${target} SOURCES)
  list(LENGTH sources source_count)
  if(SIMHASH_PCH AND source_count GREATER_EQUAL 8)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h> <algorithm> <cstdint> <map>
                              <optional> <random> <string> <vector>)
  endif()
  if(SIMHASH_TEST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${SIMHASH_TEST_OPTIMIZATION})
  endif()
endfunction()

# The cross builds run a subset of the SQL tests under qemu-user (the
# S390X/AARCH64/I686_SQL_TESTS filters of scripts/test.sh), yet compiled all
# of tests/sql/ for it. SIMHASH_SQL_TEST_FILES, a ;-list of file names in
# tests/sql/, makes sql_tests of those files alone (with its support files);
# scripts/test.sh derives the list from the stage's filter and checks that
# the program so built lists exactly the tests the full one (the Release
# build's) does under that filter. Empty (the default): every file.
set(SIMHASH_SQL_TEST_FILES "" CACHE STRING
    "Only these files of tests/sql/ (a ;-list of names) in sql_tests; empty: all")

# Keeps, of the list named by sources_var, the files SIMHASH_SQL_TEST_FILES
# names, in the list's order; a name that is not in the list is an error.
function(simhash_select_sql_tests sources_var)
  if(NOT SIMHASH_SQL_TEST_FILES)
    return()
  endif()
  set(kept)
  set(found)
  foreach(source IN LISTS ${sources_var})
    get_filename_component(name ${source} NAME)
    if(name IN_LIST SIMHASH_SQL_TEST_FILES)
      list(APPEND kept ${source})
      list(APPEND found ${name})
    endif()
  endforeach()
  foreach(name IN LISTS SIMHASH_SQL_TEST_FILES)
    if(NOT name IN_LIST found)
      message(FATAL_ERROR "SIMHASH_SQL_TEST_FILES names ${name}, which is not in tests/sql/")
    endif()
  endforeach()
  set(${sources_var} ${kept} PARENT_SCOPE)
endfunction()
