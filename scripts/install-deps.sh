#!/usr/bin/env bash
# Installs the Debian packages the build, the tests, the demo and the
# benchmarks need. Runs apt-get as root, or through sudo.
#
#   scripts/install-deps.sh           build, tests, demo
#   scripts/install-deps.sh --bench   also the quality benchmark's Chinese
#                                     corpus (manpages-zh)
set -euo pipefail

# The arm64 packages serve the aarch64 cross build, whose tests run under
# qemu-user (scripts/test.sh).
packages=(cmake g++ pkg-config libsqlite3-dev sqlite3 libxxhash-dev libicu-dev libgtest-dev
          libbenchmark-dev python3 clang g++-aarch64-linux-gnu qemu-user
          libicu-dev:arm64 libxxhash-dev:arm64 libsqlite3-dev:arm64 libgtest-dev:arm64)
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
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
