#!/usr/bin/env bash
# Builds the Python wheel (python/) around a built extension, offline, with
# Debian's setuptools and wheel:
#
#   scripts/build-wheel.sh [path/to/simhash.so] [dist/]
#
# Without a path it takes the self-contained module
# (build-selfcontained/simhash.so, cmake -DSIMHASH_SELF_CONTAINED=ON) when it
# has been built, since that one loads on any Linux with the C++ runtime, and
# build/simhash.so (which needs the system's ICU 72 and xxHash) otherwise.
#
# Install it with `pip install --no-index dist/sqlite_simhash-*.whl`.
# Debian's /usr/bin/python3 builds it unless PYTHON names another.
set -euo pipefail
python=${PYTHON:-/usr/bin/python3}
root="$(cd "$(dirname "$0")/.." && pwd)"
default_loadable=$root/build/simhash.so
if [ -f "$root/build-selfcontained/simhash.so" ]; then
  default_loadable=$root/build-selfcontained/simhash.so
fi
loadable="$(realpath "${1:-$default_loadable}")"
out="$(realpath -m "${2:-$root/dist}")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Build from a copy: setuptools writes build/ and *.egg-info beside the sources.
cp -r "$root/python" "$work/python"
cp "$root/CMakeLists.txt" "$work/"
(cd "$work/python" && SIMHASH_LOADABLE="$loadable" "$python" -m pip wheel --quiet --no-index \
  --no-build-isolation --no-deps --wheel-dir "$out" .)
ls "$out"/sqlite_simhash-*.whl
