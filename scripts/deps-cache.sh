# SPDX-License-Identifier: MIT
# Sourced by the scripts that build a dependency from Debian's source
# package into .deps/ (build-icu.sh, build-sqlite-amalgamation.sh): where
# the result goes, and the early exit when it is already there.
#
# The cache is keyed by the version of the installed -dev package the rest
# of the build uses (so the built copy matches it) and by the calling
# script's hash (so a change of recipe builds afresh instead of reusing a
# stale prefix). A prefix is complete once the script has written its
# `done` file.

# deps_cache_prefix NAME PACKAGE CACHE_ROOT: sets `version` (PACKAGE's
# installed version) and `prefix` (CACHE_ROOT/NAME-<version>-<recipe>); when
# that prefix is complete, prints it and ends the calling script.
deps_cache_prefix() {
  local name=$1 package=$2 cache_root=$3 recipe
  version=$(dpkg-query -W -f='${Version}' "$package:$(dpkg --print-architecture)")
  recipe=$(sha256sum "$0" | cut -c1-8)
  prefix=$cache_root/$name-$version-$recipe
  if [ -f "$prefix/done" ]; then
    echo "$prefix"
    exit 0
  fi
}
