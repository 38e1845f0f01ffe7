#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The glue's folders depend one way, as the engine's do: a file may include
# headers of its own folder and of the folders listed before its own, never
# after.
#
#   common  <  functions  <  index, similar  <  batch
#
# (index and similar are one layer: neither includes the other.) Any folder
# may include ext/registration.h, the list of what the entry point
# registers; ext/extension.cpp, the entry point, includes what it needs. Run
# by ctest as layout.ext_layers; ARCHITECTURE.md "Layers" states the order.
set -euo pipefail
source_dir=${1:?usage: ext_layers.sh <source dir>}
declare -A layer=([common]=0 [functions]=1 [index]=2 [similar]=2 [batch]=3)
status=0
for folder in "$source_dir"/ext/*/; do
  name=$(basename "$folder")
  if [ -z "${layer[$name]+set}" ]; then
    echo "ext/$name is not in the layer order of $0: add it there and to ARCHITECTURE.md" >&2
    status=1
    continue
  fi
  while IFS= read -r line; do
    file=${line%%:*}
    included=$(sed -E 's|.*#include "ext/([a-z_]+)/.*|\1|' <<<"$line")
    if [ "$included" != "$name" ] && [ "${layer[$included]:-99}" -ge "${layer[$name]}" ]; then
      echo "${file#"$source_dir"/}: ext/$name may not include ext/$included (${line#*:})" >&2
      status=1
    fi
  done < <(grep -HE '^#[[:space:]]*include "ext/[a-z_]+/' "$folder"*.h "$folder"*.cpp 2>/dev/null || true)
done
[ "$status" -eq 0 ] || echo "the glue's layers: common < functions < index, similar < batch" >&2
exit "$status"
