#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Python wheel (python/) around a built extension, offline, with
# Debian's setuptools and wheel:
#
#   scripts/build-wheel.sh [path/to/simhash.so] [dist/]
#
# Without a path it takes the self-contained module
# (build-selfcontained/simhash.so, cmake -DSIMHASH_SELF_CONTAINED=ON) when it
# has been built, since that one needs only the C library, and
# build/simhash.so (which needs the system's ICU 72, xxHash and libstdc++)
# otherwise.
#
# The wheel's platform tag (PEP 600) is read from the module, not assumed:
# manylinux_2_<minor>_<arch> when everything it needs is within the
# manylinux policy (the libraries below, symbol versions of glibc and
# libgcc_s only), 2.<minor> being the newest GLIBC_ symbol version it needs,
# that is the oldest glibc it loads on; linux_<arch> (this machine only)
# otherwise, as for build/simhash.so. Debian has no auditwheel to do this.
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

# The platform tag, printed to stderr with the reason for it.
platform_tag() {
  local module=$1 arch interpreter needed versions library glibc
  # The architecture as Python's platform names it (linux-x86_64), which
  # must be the module's (the same ELF machine as the interpreter's binary,
  # not a wrapper script's): a cross-built module would get a wrong tag.
  arch=$("$python" -c 'import sysconfig; print(sysconfig.get_platform().split("-", 1)[1])')
  arch=${arch//[-.]/_}
  interpreter=$("$python" -c 'import os, sys; print(os.path.realpath(sys.executable))')
  if [ "$(readelf -h "$module" | grep Machine:)" != "$(readelf -h "$interpreter" | grep Machine:)" ]; then
    echo "build-wheel.sh: $module is not built for $arch, as $python is" >&2
    return 1
  fi
  needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  versions=$(readelf -V --wide "$module" |
    sed -n '/\.gnu\.version_r/,$s/.*Name: \([^ ]*\).*/\1/p' | sort -uV)
  for library in $needed; do
    case $library in
      libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | ld-linux*.so.* | \
        libgcc_s.so.1) ;;
      *)
        echo "build-wheel.sh: $library is outside the manylinux policy: linux_$arch" >&2
        echo "linux_$arch"
        return 0
        ;;
    esac
  done
  if echo "$versions" | grep -Evq '^(GLIBC|GCC)_[0-9.]+$'; then
    echo "build-wheel.sh: symbol versions outside glibc and libgcc_s: linux_$arch" >&2
    echo "linux_$arch"
    return 0
  fi
  glibc=$(echo "$versions" | sed -n 's/^GLIBC_2\.\([0-9]*\).*/\1/p' | sort -n | tail -n 1)
  echo "build-wheel.sh: needs $(echo "$needed" | paste -sd " "), glibc 2.${glibc:-5}" >&2
  # A module that needs no versioned glibc symbol at all loads on any
  # glibc PEP 600 names (2.5, manylinux1's).
  echo "manylinux_2_${glibc:-5}_$arch"
}

platform=$(platform_tag "$loadable")
# A wheel of another tag from an earlier run (another module) would be
# installed beside this one by `pip install dist/sqlite_simhash-*.whl`.
rm -f "$out"/sqlite_simhash-*.whl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Build from a copy: setuptools writes build/ and *.egg-info beside the sources.
cp -r "$root/python" "$work/python"
cp "$root/CMakeLists.txt" "$work/"
(cd "$work/python" && SIMHASH_LOADABLE="$loadable" SIMHASH_WHEEL_PLATFORM="$platform" \
  "$python" -m pip wheel --quiet --no-index \
  --no-build-isolation --no-deps --wheel-dir "$out" .)
ls "$out"/sqlite_simhash-*.whl
