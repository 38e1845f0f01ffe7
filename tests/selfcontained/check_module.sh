#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks a self-contained module (cmake -DSIMHASH_SELF_CONTAINED=ON) from the
# outside: it needs no shared library beyond the C library (libc, libm,
# ld-linux; the C++ runtime is linked in), no GLIBCXX_/CXXABI_/GCC_ version
# and no C++ runtime symbol from the process, exports nothing but its entry
# point (and the SQL tests' counter when built with the tests), and works in
# a process without ICU (module_without_icu.py) and next to another C++
# runtime. Prints its size and the newest glibc symbol version it needs (the
# glibc it requires, which scripts/build-wheel.sh puts in the wheel's
# manylinux tag), with the symbols that need it.
#
#   bash tests/selfcontained/check_module.sh build-selfcontained/simhash.so
set -euo pipefail
module=$1
here=$(dirname "$0")
failed=0

# The C library every Linux has: libc, libm, and ld-linux (for
# __tls_get_addr, the thread-local storage of a dlopen()ed object).
needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
echo "NEEDED: $(echo $needed)"
while read -r library; do
  case $library in
    libc.so.* | libm.so.* | ld-linux*) ;;
    *)
      echo "unexpected dependency: $library" >&2
      failed=1
      ;;
  esac
done <<<"$needed"

# The entry point alone, with or without the tests.
exported=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort)
echo "exported: $(echo $exported)"
if [ "$exported" != sqlite3_simhash_init ]; then
  echo "the module exports more than its entry point" >&2
  failed=1
fi
if nm -D "$module" | grep -Eiq ' (U|T|W|V|D|B|R) .*(icu|XXH)'; then
  echo "ICU or xxHash symbols in the dynamic symbol table:" >&2
  nm -D "$module" | grep -Ei '(icu|XXH)' | head >&2
  failed=1
fi

# The symbol versions it needs: glibc's alone. A GLIBCXX_, CXXABI_ or GCC_
# version would be the C++ runtime (or libgcc_s's unwinder) coming from the
# system again, and an unversioned undefined C++ runtime symbol (a __cxa_,
# _Unwind_ or mangled name) would bind to whichever libstdc++ the process has.
versions=$(readelf -V --wide "$module" | sed -n '/\.gnu\.version_r/,$s/.*Name: \([^ ]*\).*/\1/p' |
  sort -uV)
if echo "$versions" | grep -Ev '^GLIBC_[0-9.]+$'; then
  echo "a symbol version from outside glibc (above)" >&2
  failed=1
fi
# (__cxa_atexit, __cxa_finalize and __cxa_thread_atexit_impl are glibc's.)
cxx_undefined=$(objdump -T "$module" | awk '$0 ~ /\*UND\*/ {print $NF}' |
  grep -E '^(_Z|__cxa_|__gxx_|_Unwind_)' |
  grep -Ev '^__cxa_(atexit|finalize|thread_atexit_impl)$' || true)
if [ -n "$cxx_undefined" ]; then
  echo "undefined C++ runtime symbols, which would bind to the process's:" \
    "$(echo "$cxx_undefined" | head -n 5 | paste -sd ' ') ..." >&2
  failed=1
fi
[ "$failed" -eq 0 ]

# The newest glibc version it needs is the oldest glibc that loads it.
glibc=$(echo "$versions" | grep '^GLIBC_' | tail -n 1)
echo "requires ${glibc/_/ } (for: $(objdump -T "$module" |
  awk -v v="($glibc)" '$0 ~ /\*UND\*/ && $(NF-1) == v {print $NF}' | sort | paste -sd ' '))"

stripped=$(mktemp)
strip -o "$stripped" "$module"
echo "size: $(stat -c %s "$module") bytes ($(stat -c %s "$stripped") stripped)"
rm -f "$stripped"

# Debian's sqlite3 shell (SQLite 3.40) loads it by the path without suffix.
shell_says=$(sqlite3 :memory: ".load ${module%.so}" 'SELECT simhash_icu_version()')
echo "sqlite3 shell: $shell_says"

/usr/bin/python3 "$here/module_without_icu.py" "$module"
