#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The folders of a tree depend one way: a file may include headers of its
# own folder and of the folders in the layers before its own, never after;
# folders of one layer do not include each other.
#
#   layers.sh <source dir> src "util" "text" "fingerprint" "index similar" "batch"
#   layers.sh <source dir> ext "common" "functions" "index similar" "batch"
#
# Includes name the folder from the tree's root ("text/x.h" under src/,
# "ext/index/x.h" under ext/); a header at the tree's root (ext/registration.h)
# belongs to no layer. Run by ctest as layout.engine_layers and
# layout.ext_layers; ARCHITECTURE.md "Layers" states both orders.
set -euo pipefail
source_dir=${1:?usage: layers.sh <source dir> <tree> <layer>...}
tree=${2:?usage: layers.sh <source dir> <tree> <layer>...}
shift 2
# How an include names a folder of the tree: "ext/" before it under ext/.
prefix=$([ "$tree" = src ] && echo "" || echo "$tree/")
declare -A layer=()
order=()
for ((i = 1; i <= $#; i++)); do
  for folder in ${!i}; do
    layer[$folder]=$i
  done
  order+=("${!i// /, }")
done
status=0
for folder in "$source_dir/$tree"/*/; do
  name=$(basename "$folder")
  if [ -z "${layer[$name]+set}" ]; then
    echo "$tree/$name is in no layer: add it to the call in CMakeLists.txt and to ARCHITECTURE.md" >&2
    status=1
    continue
  fi
  while IFS= read -r line; do
    file=${line%%:*}
    included=$(sed -E "s|.*#include \"${prefix}([a-z_]+)/.*|\1|" <<<"$line")
    [ -n "${layer[$included]+set}" ] || continue
    if [ "$included" != "$name" ] && [ "${layer[$included]}" -ge "${layer[$name]}" ]; then
      echo "${file#"$source_dir"/}: $tree/$name may not include $tree/$included (${line#*:})" >&2
      status=1
    fi
  done < <(grep -HE "^#[[:space:]]*include \"${prefix}[a-z_]+/" "$folder"*.h "$folder"*.cpp 2>/dev/null || true)
done
if [ "$status" -ne 0 ]; then
  (IFS='<'; echo "the layers of $tree/: ${order[*]}" >&2)
fi
exit "$status"
