#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The module exports its entry point alone: nothing of the engine, ICU or
# the C++ library (cmake/module-exports.cmake says why). Run by ctest as
# layout.module_exports on the build's module.
set -euo pipefail
module=${1:?usage: module_exports.sh <module>}
exported=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort | tr '\n' ' ')
expected="sqlite3_simhash_init "
if [ "$exported" != "$expected" ]; then
  echo "$module exports: $exported" >&2
  echo "expected only: $expected" >&2
  exit 1
fi
echo "$module exports: $exported"
