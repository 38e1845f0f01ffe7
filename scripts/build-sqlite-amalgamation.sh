#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the SQLite amalgamation (sqlite3.c, sqlite3.h, sqlite3ext.h) that
# the bundled-SQLite build (cmake -DSIMHASH_SQLITE_AMALGAMATION=<dir>,
# tests/amalgamation/) compiles into its application: Debian's own sqlite3
# source package, the version the system's libsqlite3-dev has, with Debian's
# patches (its security fixes among them). The source package is SQLite's
# full tree, not the amalgamation, so the amalgamation is generated from it.
# The result is cached under .deps/sqlite-amalgamation-<version>-<recipe>/
# (keyed by that version and this script's hash) and a second run only
# prints its path.
#
#   scripts/build-sqlite-amalgamation.sh [cache-root]   default: <repository>/.deps
#
# Prints the directory (sqlite3.c, sqlite3.h, sqlite3ext.h) on its last
# line. Needs the deb-src line scripts/install-deps.sh adds, dpkg-dev
# (apt-get source), make, a C compiler and tclsh (Debian's tcl), which
# SQLite's generators are written in.
set -euo pipefail
repository=$(cd "$(dirname "$0")/.." && pwd)
cache_root=${1:-$repository/.deps}
jobs=${JOBS:-2}

# Debian 12's is 3.40.1, the oldest SQLite the extension accepts, so the
# bundled build also tests that minimum.
. "$repository/scripts/deps-cache.sh"
deps_cache_prefix sqlite-amalgamation libsqlite3-dev "$cache_root"
echo "generating the SQLite $version amalgamation into $prefix" >&2
start=$SECONDS

work=$prefix.work
rm -rf "$work" "$prefix"
mkdir -p "$work/build" "$prefix"
# --no-check: apt has already checked the files against the archive's
# signed index; the .dsc's own signature would need debian-keyring.
(cd "$work" && apt-get source --download-only "sqlite3=$version" >&2 &&
  dpkg-source --no-check -x ./*.dsc source >&2) || {
  echo "cannot fetch SQLite $version's source: scripts/install-deps.sh adds the deb-src" \
    "line and the packages this needs" >&2
  exit 1
}

# main.mk is the makefile upstream's ./configure output and
# Makefile.linux-gcc both include; called directly it generates the same
# sqlite3.c and sqlite3.h byte for byte (compared once against `./configure
# && make sqlite3.c`) in a few seconds instead of the minute configure's
# libtool checks take. The generators (lemon, mksourceid, mkkeywordhash)
# are only built and run here; the amalgamation is compiled by the project.
make -C "$work/build" -f ../source/main.mk -j"$jobs" TOP=../source BCC=cc TCC=cc NAWK=awk \
  sqlite3.c >"$work/make.log" 2>&1 || {
  tail -30 "$work/make.log" >&2
  exit 1
}
cp "$work/build/sqlite3.c" "$work/build/sqlite3.h" "$work/build/sqlite3ext.h" "$prefix/"

# What the cache holds, for the build log.
{
  echo "SQLite $version amalgamation (Debian source), generated $(date -u +%FT%TZ) in" \
    "$((SECONDS - start)) s"
  grep -E '^#define SQLITE_(VERSION|SOURCE_ID) ' "$prefix/sqlite3.h"
} | tee "$prefix/done" >&2
rm -rf "$work"
echo "$prefix"
