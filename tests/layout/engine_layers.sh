#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The engine's folders depend one way: a file may include headers of its own
# folder and of the folders listed before its own, never after.
#
#   util  <  text  <  fingerprint  <  index, similar  <  batch
#
# (index and similar are one layer: neither includes the other.) Run by
# ctest as layout.engine_layers; ARCHITECTURE.md "Layers" states the order.
set -euo pipefail
source_dir=${1:?usage: engine_layers.sh <source dir>}
declare -A layer=([util]=0 [text]=1 [fingerprint]=2 [index]=3 [similar]=3 [batch]=4)
status=0
for folder in "$source_dir"/src/*/; do
  name=$(basename "$folder")
  if [ -z "${layer[$name]+set}" ]; then
    echo "src/$name is not in the layer order of $0: add it there and to ARCHITECTURE.md" >&2
    status=1
    continue
  fi
  while IFS= read -r line; do
    file=${line%%:*}
    included=$(sed -E 's|.*#include "([a-z_]+)/.*|\1|' <<<"$line")
    [ -n "${layer[$included]+set}" ] || continue
    if [ "$included" != "$name" ] && [ "${layer[$included]}" -ge "${layer[$name]}" ]; then
      echo "${file#"$source_dir"/}: src/$name may not include src/$included (${line#*:})" >&2
      status=1
    fi
  done < <(grep -HE '^#[[:space:]]*include "[a-z_]+/' "$folder"*.h "$folder"*.cpp 2>/dev/null || true)
done
[ "$status" -eq 0 ] || echo "the engine's layers: util < text < fingerprint < index, similar < batch" >&2
exit "$status"
