#!/usr/bin/env bash
# Installs the Debian packages the build, the tests, the demo and the
# benchmarks need. Runs apt-get as root, or through sudo.
#
#   scripts/install-deps.sh           build, tests, demo
#   scripts/install-deps.sh --bench   also the quality benchmark's Chinese
#                                     corpus (manpages-zh)
set -euo pipefail

# setuptools, wheel, pip and venv build and test the Python wheel offline;
# the wheel's test reads a database with sqlite-utils.
# The cross compilers and qemu-user serve the aarch64, s390x (big-endian) and
# i386 (32-bit, x87) cross builds of scripts/test.sh; their target libraries
# are unpacked by scripts/cross-sysroot.sh with an apt of its own, so the
# system's apt needs no foreign architecture.
# dpkg-dev (apt-get source, dpkg-source), make and icu-devtools (icupkg and
# genccode, which trim and compile ICU's data) serve scripts/build-icu.sh,
# which builds Debian's ICU source for the self-contained module; apt needs
# a deb-src line for it, added below when the system has none.
# tcl (tclsh) serves scripts/build-sqlite-amalgamation.sh: Debian's sqlite3
# source package is SQLite's full tree, and the Tcl scripts in it generate
# the amalgamation (sqlite3.c) that the bundled-SQLite stage compiles in.
packages=(cmake g++ pkg-config libsqlite3-dev sqlite3 libxxhash-dev libicu-dev libgtest-dev
          libbenchmark-dev python3 python3-setuptools python3-wheel python3-pip python3-venv
          sqlite-utils clang g++-aarch64-linux-gnu g++-s390x-linux-gnu g++-i686-linux-gnu qemu-user
          dpkg-dev make icu-devtools tcl)
# libdqlite-dev builds the dqlite node program (examples/dqlite/) and go-dqlite
# brings the `dqlite` shell that its README section and test use.
packages+=(libdqlite-dev go-dqlite)
if [ "${1:-}" = "--bench" ]; then
  packages+=(manpages-zh)
elif [ $# -gt 0 ]; then
  echo "usage: $0 [--bench]" >&2
  exit 2
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
update=$([ ${#missing[@]} -gt 0 ] && echo yes || echo no)
# ICU's and SQLite's source packages, from the same archives as the binary
# packages (the release, its updates and its security updates, where a newer
# libicu-dev would come from), main component, in a file of its own so
# nothing else changes.
if ! apt-cache showsrc icu 2>/dev/null | grep -q '^Package: icu$'; then
  if ! grep -Eqs '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/*; then
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
      "Suites: $codename $codename-updates" "Components: main" "Signed-By: $keyring" "" \
      "Types: deb-src" "URIs: http://deb.debian.org/debian-security" \
      "Suites: $codename-security" "Components: main" "Signed-By: $keyring" |
      $sudo tee /etc/apt/sources.list.d/sqlite-simhash-src.sources >/dev/null
  fi
  update=yes
fi
if [ "$update" = no ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
