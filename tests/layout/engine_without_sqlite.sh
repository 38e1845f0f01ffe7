#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The engine (src/) knows nothing of SQLite: no file under src/ may include
# sqlite3.h or sqlite3ext.h. Run by ctest as layout.engine_without_sqlite.
set -euo pipefail
source_dir=${1:?usage: engine_without_sqlite.sh <source dir>}
if grep -rnE '#[[:space:]]*include[[:space:]]*[<"]sqlite3(ext)?\.h[>"]' "$source_dir/src"; then
  echo "src/ is the engine: SQLite belongs in ext/ (the lines above include it)" >&2
  exit 1
fi
