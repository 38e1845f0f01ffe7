#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bundled-SQLite application (bundled_sqlite_app.c) seen from outside:
# SQLite is in the binary and no libsqlite3 is loaded, the extension was
# compiled against the amalgamation's headers rather than the system's, and
# the program's own checks pass with the amalgamation's version.
#
#   tests/amalgamation/check_app.sh <program> <amalgamation dir> <simhash_static's object dir> \
#                                   omitted|kept
#
# The last says whether the amalgamation was compiled with
# SQLITE_OMIT_LOAD_EXTENSION.
set -euo pipefail
app=$1
amalgamation=$(realpath "$2")
objects=$3
load_extension=$4

# The system's SQLite is often the same version as the amalgamation, so
# only the binary says which one runs: a NEEDED entry or anything ldd
# resolves (a dependency's own) would bring libsqlite3 into the process.
if readelf -d "$app" | grep -F NEEDED | grep -i sqlite; then
  echo "$app needs a shared SQLite" >&2
  exit 1
fi
if ldd "$app" | grep -i sqlite; then
  echo "$app loads a shared SQLite" >&2
  exit 1
fi
# Not grep -q: it would stop reading at the match, and nm's broken pipe
# would then fail the pipeline (pipefail).
if ! nm "$app" | grep ' T sqlite3_open_v2$' >/dev/null; then
  echo "$app does not define sqlite3_open_v2: SQLite is not linked in" >&2
  exit 1
fi

# The compiler's dependency files name the headers each of the extension's
# objects was compiled with: all of them the amalgamation's. (The same
# version's system header would compile too, and any difference would only
# show at run time.)
headers=$(find "$objects/ext" -name '*.d' -exec cat {} + | grep -oE '[^ :\\]*sqlite3(ext)?\.h' | sort -u)
if [ -z "$headers" ]; then
  echo "no dependency file under $objects/ext names sqlite3.h" >&2
  exit 1
fi
while read -r header; do
  if [ "$(realpath "$header")" != "$amalgamation/$(basename "$header")" ]; then
    echo "the extension was compiled with $header, not $amalgamation's" >&2
    exit 1
  fi
done <<<"$headers"

version=$(sed -n 's/^#define SQLITE_VERSION  *"\(.*\)"$/\1/p' "$amalgamation/sqlite3.h")
"$app" "$version" "$load_extension"
