#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the ICU that the self-contained extension (cmake
# -DSIMHASH_SELF_CONTAINED=ON) links statically: Debian's own ICU source
# package, the version the system's libicu-dev has, compiled position-
# independent (Debian's libicuuc.a is not, so it cannot go into a shared
# object) with every symbol hidden, plus ICU's data trimmed to what the
# extension reads. The result is cached under .deps/icu-<version>-<recipe>/
# (keyed by that version and this script's hash) and a second run only
# prints its path.
#
#   scripts/build-icu.sh [cache-root]     default: <repository>/.deps
#
# Prints the prefix (include/, lib/) on its last line. Needs the deb-src
# line scripts/install-deps.sh adds, dpkg-dev (apt-get source) and
# icu-devtools (icupkg, genccode).
#
# What is built: only ICU's common library (libicuuc: normalization, break
# iteration, the dictionaries' engines, UnicodeString); the extension calls
# nothing from i18n, io or the tools. -O2, no tests, samples or tools.
set -euo pipefail
repository=$(cd "$(dirname "$0")/.." && pwd)
cache_root=${1:-$repository/.deps}
jobs=${JOBS:-2}

# The version of the ICU the rest of the build uses, so that the static
# library fingerprints exactly as the shared one the tests are run against.
. "$repository/scripts/deps-cache.sh"
deps_cache_prefix icu libicu-dev "$cache_root"
echo "building ICU $version into $prefix" >&2
start=$SECONDS

# The unpacked source stays until both parts below are done, so a run that
# stopped after the library (a data item missing, say) does not compile it
# again.
work=$prefix.work
source_dir=$work/source/source
mkdir -p "$work" "$prefix/lib" "$prefix/include"
if [ ! -f "$work/unpacked" ]; then
  rm -rf "$work"/*
  # --no-check: apt has already checked the files against the archive's
  # signed index; the .dsc's own signature would need debian-keyring.
  (cd "$work" && apt-get source --download-only "icu=$version" >&2 &&
    dpkg-source --no-check -x ./*.dsc source >&2) || {
    echo "cannot fetch ICU $version's source: scripts/install-deps.sh adds the deb-src" \
      "line and the packages this needs" >&2
    exit 1
  }
  touch "$work/unpacked"
fi

# U_STATIC_IMPLEMENTATION empties U_EXPORT, so with -fvisibility=hidden no ICU
# symbol is visible outside the object that will contain it (the module's
# link adds a version script on top). -ffunction-sections lets the linker
# drop the parts of libicuuc the extension never reaches. The compilers are
# named: ICU's configure would otherwise prefer clang.
build_common_library() {
  local flags="-O2 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden"
  flags+=" -ffunction-sections -fdata-sections"
  (cd "$source_dir" &&
    CC=${CC:-gcc} CXX=${CXX:-g++} CFLAGS="$flags" CXXFLAGS="$flags -std=c++17" \
      CPPFLAGS="-DU_STATIC_IMPLEMENTATION" ./configure --prefix="$prefix" --enable-static \
      --disable-shared --with-data-packaging=static --disable-tests --disable-samples \
      --disable-tools --disable-extras --disable-icuio --disable-layoutex \
      >"$work/configure.log" 2>&1) || {
    tail -20 "$work/configure.log" >&2
    return 1
  }
  # The top-level makefile, not run, would have made lib/ for the archive.
  mkdir -p "$source_dir/lib"
  make -C "$source_dir/common" -j"$jobs" >"$work/make.log" 2>&1 || {
    tail -30 "$work/make.log" >&2
    return 1
  }
  mkdir -p "$prefix/include/unicode"
  cp "$source_dir"/common/unicode/*.h "$prefix/include/unicode/"
  cp "$source_dir/lib/libicuuc.a" "$prefix/lib/"
  echo "ICU's common library: $((SECONDS - start)) s" >&2
}
if [ ! -f "$prefix/lib/libicuuc.a" ]; then
  build_common_library
fi

# The data: ICU's prebuilt package from the same source, reduced to the items
# the extension reads. NFKC_Casefold (nfkc_cf.nrm), the word break rules
# (brkitr/word.brk, found through brkitr/root.res) and the dictionaries the
# word breaker uses for scripts without spaces (Chinese and Japanese, Thai,
# Lao, Burmese, Khmer). The Chinese/Japanese breaker also opens NFKC
# (nfkc.nrm) and the Japanese extensions (brkitr/ja.res) and, without them,
# silently leaves Han text unsegmented: the golden vectors catch that
# (tests/selfcontained/). Character properties, NFC and case mapping are
# compiled into libicuuc itself.
full_data=$(ls "$source_dir"/data/in/icudt*l.dat)
data_name=$(basename "$full_data" .dat) # icudt72l
entry_point=${data_name%l}              # icudt72: the symbol libicuuc looks for
items=(nfkc_cf.nrm nfkc.nrm brkitr/root.res brkitr/res_index.res brkitr/ja.res brkitr/word.brk
  brkitr/cjdict.dict brkitr/thaidict.dict brkitr/laodict.dict brkitr/burmesedict.dict
  brkitr/khmerdict.dict)
rm -rf "$work/data"
mkdir -p "$work/data/$data_name" "$work/data/out"
printf '%s\n' "${items[@]}" >"$work/data/items.txt"
icupkg -d "$work/data/$data_name" -x "$work/data/items.txt" "$full_data"
# --ignore-deps: brkitr/root.res names every break rule file (line,
# sentence, ...) but the extension only ever opens the word rules.
icupkg --ignore-deps -s "$work/data/$data_name" -a "$work/data/items.txt" new \
  "$work/data/out/$data_name.dat"
genccode -q -a gcc -e "$entry_point" -d "$work/data/out" "$work/data/out/$data_name.dat"
# Assembly with only .rodata: position-independent as is. The archive keeps
# it out of the dynamic symbol table through --exclude-libs as well.
cc -c -fPIC -o "$work/data/out/$data_name.o" "$work/data/out/${data_name}_dat.S"
ar rcs "$prefix/lib/libicudata-trimmed.a" "$work/data/out/$data_name.o"
cp "$work/data/out/$data_name.dat" "$prefix/lib/"

# What the cache holds, for the build log and the README's figures.
{
  echo "ICU $version (Debian source), built $(date -u +%FT%TZ) in $((SECONDS - start)) s"
  echo "full data: $(stat -c %s "$full_data") bytes; trimmed: $(stat -c %s "$work/data/out/$data_name.dat") bytes"
  printf 'items: %s\n' "${items[*]}"
} | tee "$prefix/done" >&2
rm -rf "$work"
echo "$prefix"
