#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs the npm package (npm/) around built modules, offline, with npm pack:
#
#   scripts/build-npm.sh [dist/] [x64 simhash.so] [arm64 simhash.so]
#
# The x64 module defaults to the self-contained one
# (build-selfcontained/simhash.so, which needs only the C library) when it
# has been built, else build/simhash.so (which needs this system's ICU 72,
# xxHash and libstdc++, as the wheel's linux_x86_64 build does); the arm64
# one to build-aarch64/simhash.so (the cross build of scripts/test.sh) when
# it exists, else none. Each goes to lib/linux-<arch>/simhash.so in a copy
# of npm/ (the checkout is left as it is), whose version is set to
# project()'s in CMakeLists.txt; the tarball's path is the last line printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(realpath -m "${1:-$root/dist}")"
x64=${2:-$root/build/simhash.so}
if [ -z "${2:-}" ] && [ -f "$root/build-selfcontained/simhash.so" ]; then
  x64=$root/build-selfcontained/simhash.so
fi
arm64=${3:-$root/build-aarch64/simhash.so}

# The ELF machine a module is built for, so a module never lands in the
# other architecture's folder.
machine() { readelf -h "$1" | sed -n 's/^ *Machine: *//p'; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$root/npm/package.json" "$root/npm/index.js" "$root/npm/index.d.ts" "$root/npm/README.md" "$stage/"
[ -f "$x64" ] || { echo "build-npm.sh: no x64 module at $x64 (cmake --build build --target simhash)" >&2; exit 1; }
case "$(machine "$x64")" in
  *X86-64*) ;;
  *) echo "build-npm.sh: $x64 is not an x86-64 module ($(machine "$x64"))" >&2; exit 1 ;;
esac
mkdir -p "$stage/lib/linux-x64"
cp "$x64" "$stage/lib/linux-x64/simhash.so"
if [ -f "$arm64" ]; then
  case "$(machine "$arm64")" in
    *AArch64*) ;;
    *) echo "build-npm.sh: $arm64 is not an AArch64 module ($(machine "$arm64"))" >&2; exit 1 ;;
  esac
  mkdir -p "$stage/lib/linux-arm64"
  cp "$arm64" "$stage/lib/linux-arm64/simhash.so"
fi
version=$(sed -n 's/^project([a-z_]* VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
(cd "$stage" && npm pkg set version="$version" >/dev/null)
mkdir -p "$out"
echo "build-npm.sh: x64 $x64${arm64:+, arm64 $([ -f "$arm64" ] && echo "$arm64" || echo none)}" >&2
(cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "$out/sqlite-simhash-$version.tgz"
