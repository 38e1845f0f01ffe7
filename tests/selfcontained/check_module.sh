#!/usr/bin/env bash
# Checks a self-contained module (cmake -DSIMHASH_SELF_CONTAINED=ON) from the
# outside: it needs no shared library beyond the C and C++ runtimes, exports
# nothing but its entry point (and the SQL tests' counter when built with
# the tests), and works in a process without ICU (module_without_icu.py).
# Prints its size.
#
#   bash tests/selfcontained/check_module.sh build-selfcontained/simhash.so
set -euo pipefail
module=$1
here=$(dirname "$0")
failed=0

# The C and C++ runtimes every Linux with a C++ compiler has.
needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
echo "NEEDED: $(echo $needed)"
while read -r library; do
  case $library in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | ld-linux*) ;;
    *)
      echo "unexpected dependency: $library" >&2
      failed=1
      ;;
  esac
done <<<"$needed"

# The entry point, and the SQL tests' counter in a build with the tests.
exported=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort)
echo "exported: $(echo $exported)"
if [ "$exported" != sqlite3_simhash_init ] &&
  [ "$exported" != "$(printf '%s\n' simhash_debug_options_parse_count sqlite3_simhash_init)" ]; then
  echo "the module exports more than its entry point and test counter" >&2
  failed=1
fi
if nm -D "$module" | grep -Eiq ' (U|T|W|V|D|B|R) .*(icu|XXH)'; then
  echo "ICU or xxHash symbols in the dynamic symbol table:" >&2
  nm -D "$module" | grep -Ei '(icu|XXH)' | head >&2
  failed=1
fi
[ "$failed" -eq 0 ]

stripped=$(mktemp)
strip -o "$stripped" "$module"
echo "size: $(stat -c %s "$module") bytes ($(stat -c %s "$stripped") stripped)"
rm -f "$stripped"

# Debian's sqlite3 shell (SQLite 3.40) loads it by the path without suffix.
shell_says=$(sqlite3 :memory: ".load ${module%.so}" 'SELECT simhash_icu_version()')
echo "sqlite3 shell: $shell_says"

/usr/bin/python3 "$here/module_without_icu.py" "$module"
