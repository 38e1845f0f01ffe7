# SPDX-License-Identifier: MIT
# SIMHASH_SELF_CONTAINED: the dependencies of a loadable module that needs
# nothing beyond the C library (libc, libm). ICU comes from scripts/build-icu.sh
# (Debian's ICU source built position-independent with hidden symbols, its
# data trimmed and compiled in) and xxHash is compiled into the one file that
# hashes (XXH_INLINE_ALL: static functions, no symbol at all). Defines the
# targets simhash::icu and simhash::xxhash that the pkg-config build gets from
# PkgConfig::ICU and PkgConfig::XXHASH, and the link options that keep the
# module's dynamic symbol table down to its entry point.

set(SIMHASH_ICU_ROOT "" CACHE PATH
    "A prefix made by scripts/build-icu.sh (empty: run it, cached under .deps/)")
if(NOT SIMHASH_ICU_ROOT)
  # Configure time, not build time: the targets below need the prefix, and
  # the script returns at once when its cache is filled.
  execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/build-icu.sh
                  OUTPUT_VARIABLE icu_prefix_lines RESULT_VARIABLE icu_result
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT icu_result EQUAL 0)
    message(FATAL_ERROR "scripts/build-icu.sh failed (${icu_result})")
  endif()
  string(REGEX REPLACE ".*\n" "" icu_prefix "${icu_prefix_lines}")
  # Configure again when the recipe changes: its hash names a new prefix.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/scripts/build-icu.sh)
else()
  set(icu_prefix ${SIMHASH_ICU_ROOT})
endif()
foreach(required include/unicode/uversion.h lib/libicuuc.a lib/libicudata-trimmed.a)
  if(NOT EXISTS ${icu_prefix}/${required})
    message(FATAL_ERROR "${icu_prefix} has no ${required}: not a scripts/build-icu.sh prefix")
  endif()
endforeach()
message(STATUS "Self-contained build with the static ICU in ${icu_prefix}")

add_library(simhash_icu INTERFACE)
add_library(simhash::icu ALIAS simhash_icu)
target_include_directories(simhash_icu SYSTEM INTERFACE ${icu_prefix}/include)
# U_STATIC_IMPLEMENTATION: the headers then declare nothing dllexport-style;
# the data archive last, since libicuuc refers to its entry point.
target_compile_definitions(simhash_icu INTERFACE U_STATIC_IMPLEMENTATION)
target_link_libraries(simhash_icu INTERFACE ${icu_prefix}/lib/libicuuc.a
                      ${icu_prefix}/lib/libicudata-trimmed.a ${CMAKE_DL_LIBS})

find_path(SIMHASH_XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
add_library(simhash_xxhash INTERFACE)
add_library(simhash::xxhash ALIAS simhash_xxhash)
target_include_directories(simhash_xxhash SYSTEM INTERFACE ${SIMHASH_XXHASH_INCLUDE_DIR})
target_compile_definitions(simhash_xxhash INTERFACE XXH_INLINE_ALL)

# Applied to the module target: export only what the version script names,
# hide whatever the static archives would still export, drop unreached code,
# and refuse to link with an undefined symbol (SQLite comes through the API
# table, so anything undefined would be a missing dependency).
# The C++ runtime is linked in too (-static-libstdc++ -static-libgcc: GCC's
# libstdc++.a, which Debian builds position-independent, and libgcc_eh.a's
# unwinder), so the module needs no GLIBCXX_/CXXABI_ version and loads where
# the system's libstdc++ is older than GCC 12's. --exclude-libs,ALL and the
# version script's `local: *` keep its symbols local: the module's own
# operator new, exceptions and type_info cannot meet the process's
# libstdc++ (nothing C++ crosses the SQLite C API), and neither binds to
# the other's. ICU's and libstdc++'s vtables refer to __cxa_pure_virtual
# only weakly, which would not pull its definition out of libstdc++.a and
# would leave the module importing it, unversioned, from whatever C++
# runtime the process has: --undefined pulls it in, so the module imports
# nothing but the C library.
function(simhash_make_self_contained target)
  simhash_export_entry_point_only(${target})
  target_link_options(${target} PRIVATE -Wl,--gc-sections -Wl,-z,defs -static-libstdc++
                      -static-libgcc -Wl,--undefined=__cxa_pure_virtual)
endfunction()
