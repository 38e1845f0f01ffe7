#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Unpacks the target libraries a cross build needs (ICU, SQLite, xxHash and
# GoogleTest: the -dev packages and their runtime libraries) from Debian's
# archive into .cross/<triple>/, without installing them.
#
# Why not multiarch packages: Debian has no security archive for s390x, so
# its -dev packages cannot be installed beside amd64's security updates
# (libc6-dev and libssl3 must match across architectures). Why an apt of its
# own rather than `dpkg --add-architecture`: a foreign architecture's index
# that fails to download (a mirror caught mid-sync, as bookworm-security's
# i386 index was here for days) would then fail the host's own
# `apt-get update` and every install after it. Here only this script's
# downloads see it, and an index that fails is skipped: the release's own
# index has every package named below.
#
#   scripts/cross-sysroot.sh arm64|s390x|i386     (a Debian architecture name)
set -euo pipefail

case "${1:-}" in
  s390x) triple=s390x-linux-gnu ;;
  arm64) triple=aarch64-linux-gnu ;;
  i386) triple=i686-linux-gnu ;;
  *)
    echo "usage: $0 arm64|s390x|i386" >&2
    exit 2
    ;;
esac
arch=$1
root="$(cd "$(dirname "$0")/.." && pwd)/.cross/$triple"
if [ -f "$root/.complete" ]; then
  exit 0
fi
packages=(libicu-dev libicu72 libsqlite3-dev libsqlite3-0 libxxhash-dev libxxhash0 libgtest-dev)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$work/sources.list" <<EOF
deb [arch=$arch signed-by=$keyring] http://deb.debian.org/debian $codename main
deb [arch=$arch signed-by=$keyring] http://deb.debian.org/debian $codename-updates main
deb [arch=$arch signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main
EOF
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
apt_options=(-q -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
             -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
             -o "Dir::State::Status=/dev/null" -o "APT::Sandbox::User=root")
if ! apt-get "${apt_options[@]}" update >"$work/update.log" 2>&1; then
  echo "cross-sysroot: some $arch indexes failed to download; going on with the rest:" >&2
  grep -E '^(E|W|Err):' "$work/update.log" >&2 || true
fi
(cd "$work/debs" && apt-get "${apt_options[@]}" download "${packages[@]}")
rm -rf "$root"
mkdir -p "$root"
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$root"
done
touch "$root/.complete"
echo "unpacked ${#packages[@]} $arch packages into $root"
