#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages the project needs, with apt-get as root or
# through sudo; does nothing when they are there.
#
#   scripts/install-deps.sh                  the extension and the demo
#                                            (the README's first command)
#   scripts/install-deps.sh --self-contained also what the self-contained
#                                            module's ICU build needs
#   scripts/install-deps.sh --tests          everything scripts/test.sh runs
#                                            (the README's test command)
#   scripts/install-deps.sh --bench          --tests, the quality
#                                            benchmark's Chinese corpus, and
#                                            PostgreSQL 15 (pg_trgm, beside
#                                            simhash_similar in
#                                            bench/similar_latency.py)
set -euo pipefail

# The extension and the demo: a compiler, CMake, SQLite (library and shell),
# xxHash and ICU.
packages=(cmake g++ pkg-config libsqlite3-dev sqlite3 libxxhash-dev libicu-dev)
# dpkg-dev (apt-get source, dpkg-source), make and icu-devtools (icupkg and
# genccode, which trim and compile ICU's data) serve scripts/build-icu.sh,
# which builds Debian's ICU source for the self-contained module; apt needs
# a deb-src line for it, added below when the system has none.
self_contained=(dpkg-dev make icu-devtools)
# GoogleTest and Google Benchmark; setuptools, wheel, pip and venv build and
# test the Python wheel offline; the wheel's test reads a database with
# sqlite-utils.
# The cross compilers and qemu-user serve the aarch64, s390x (big-endian) and
# i386 (32-bit, x87) cross builds of scripts/test.sh; their target libraries
# are unpacked by scripts/cross-sysroot.sh with an apt of its own, so the
# system's apt needs no foreign architecture.
# tcl (tclsh) serves scripts/build-sqlite-amalgamation.sh: Debian's sqlite3
# source package is SQLite's full tree, and the Tcl scripts in it generate
# the amalgamation (sqlite3.c) that the bundled-SQLite stage compiles in.
# libdqlite-dev builds the dqlite node program (examples/dqlite/) and go-dqlite
# brings the `dqlite` shell that docs/dqlite.md and its test use.
# The client examples of docs/clients.md: Go with mattn/go-sqlite3
# (golang-go, golang-github-mattn-go-sqlite3-dev), Rust with rusqlite (cargo,
# librust-rusqlite-dev: the crates, built offline) and Ruby's sqlite3 gem
# (ruby-sqlite3). nodejs runs the npm package's test (docs/node.md);
# better-sqlite3 12 needs Node 20 or later, which Debian 12's nodejs (18) is
# not: that stage was run with NodeSource's nodejs 20. python3-distributed
# (Dask's scheduler and workers) runs the Python dedup on a local cluster.
tests=(libgtest-dev libbenchmark-dev python3 python3-setuptools python3-wheel python3-pip
       python3-venv python3-distributed sqlite-utils clang clang-format g++-aarch64-linux-gnu g++-s390x-linux-gnu g++-i686-linux-gnu
       qemu-user tcl libdqlite-dev go-dqlite golang-go golang-github-mattn-go-sqlite3-dev cargo
       librust-rusqlite-dev ruby-sqlite3 nodejs "${self_contained[@]}")
# npm and the Node headers that better-sqlite3 compiles against: Debian's
# npm and libnode-dev, unless the Node installed brings its own (NodeSource's
# nodejs package holds both, and conflicts with Debian's npm).
command -v npm >/dev/null || tests+=(npm libnode-dev)
need_sources=no
case "${1:-}" in
  "") ;;
  --self-contained) packages+=("${self_contained[@]}") need_sources=yes ;;
  --tests) packages+=("${tests[@]}") need_sources=yes ;;
  --bench) packages+=("${tests[@]}" manpages-zh postgresql-15) need_sources=yes ;;
  *)
    echo "usage: $0 [--self-contained | --tests | --bench]" >&2
    exit 2
    ;;
esac
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
if [ "$need_sources" = yes ] && ! apt-cache showsrc icu 2>/dev/null | grep -q '^Package: icu$'; then
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
