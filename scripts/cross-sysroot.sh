#!/usr/bin/env bash
# Unpacks the target libraries a cross build needs (ICU, SQLite, xxHash and
# GoogleTest: the -dev packages and their runtime libraries) from Debian's
# archive into .cross/<triple>/, without installing them. The s390x build
# needs this: Debian has no security archive for s390x, so its multiarch
# -dev packages cannot be installed beside amd64's security updates (libc6-dev
# and libssl3 must match across architectures). scripts/install-deps.sh adds
# the architecture to apt so that `apt-get download` finds the packages.
#
#   scripts/cross-sysroot.sh s390x     (a Debian architecture name)
set -euo pipefail

case "${1:-}" in
  s390x) triple=s390x-linux-gnu ;;
  arm64) triple=aarch64-linux-gnu ;;
  *)
    echo "usage: $0 s390x|arm64" >&2
    exit 2
    ;;
esac
arch=$1
root="$(cd "$(dirname "$0")/.." && pwd)/.cross/$triple"
if [ -f "$root/.complete" ]; then
  exit 0
fi
packages=(libicu-dev libicu72 libsqlite3-dev libsqlite3-0 libxxhash-dev libxxhash0 libgtest-dev)
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
(cd "$download" && apt-get download -q "${packages[@]/%/:$arch}")
rm -rf "$root"
mkdir -p "$root"
for deb in "$download"/*.deb; do
  dpkg-deb -x "$deb" "$root"
done
touch "$root/.complete"
echo "unpacked ${#packages[@]} $arch packages into $root"
