#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs a build (cmake --install) into a temporary prefix, then builds
# tests/install/app/ against it twice, as users would: with CMake's
# find_package(sqlite_simhash) and with pkg-config, and runs both.
#
#   tests/install/install_test.sh <build dir>
set -euo pipefail
build=$(realpath "$1")
app=$(cd "$(dirname "$0")/app" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > /dev/null
expected='1|2|0'

cmake -S "$app" -B "$work/cmake-app" -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/cmake-app" > /dev/null
found=$("$work/cmake-app/app")
[ "$found" = "$expected" ] || { echo "find_package app printed '$found', not '$expected'" >&2; exit 1; }

flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs sqlite_simhash)
# shellcheck disable=SC2086 # the flags are words
cc -o "$work/pkg-config-app" "$app/main.c" $flags
found=$("$work/pkg-config-app")
[ "$found" = "$expected" ] || { echo "pkg-config app printed '$found', not '$expected'" >&2; exit 1; }
echo "find_package and pkg-config apps built against $work/prefix: $expected"
