# SPDX-License-Identifier: MIT
# What makes a build from nothing (scripts/test.sh on a fresh CI machine, no
# compiler cache) cheaper without changing what is built or run: a
# precompiled header for the test programs (SIMHASH_PCH). Off by default: a
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
endfunction()
