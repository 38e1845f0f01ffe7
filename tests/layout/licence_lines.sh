#!/usr/bin/env bash
# Every source file the project tracks says its licence (LICENSE, MIT) in
# one of its first three lines: "SPDX-License-Identifier: MIT" behind the
# file's comment marker. Run by ctest as layout.licence_lines; files not yet
# committed are checked too, so a new file fails before it lands.
set -euo pipefail
source_dir=${1:?usage: licence_lines.sh <source dir>}
cd "$source_dir"
missing=()
while IFS= read -r -d '' file; do
  case "$file" in
    *.cpp | *.h | *.c | *.py | *.sh | *.sql | *.cmake | *.go | *.js | *.mjs | *.ts | *.rs | *.rb | \
      *.toml | */CMakeLists.txt | CMakeLists.txt | .ci/run) ;;
    *) continue ;;
  esac
  [ -f "$file" ] || continue
  head -n 3 "$file" | grep -q 'SPDX-License-Identifier: MIT' || missing+=("$file")
done < <(git ls-files -z --cached --others --exclude-standard 2>/dev/null)
if [ ${#missing[@]} -gt 0 ]; then
  printf '%s\n' "${missing[@]}" >&2
  echo "these files lack 'SPDX-License-Identifier: MIT' in their first three lines" >&2
  exit 1
fi
